import type { ContactListRepository } from "@tidings/core";
import { contactListRows } from "@tidings/core/sql";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** Contact lists and their memberships. */
export function contactListRepository({
  access,
  sql,
}: SqliteConnection): SyncOf<ContactListRepository> {
  return {
    ...contactListRows(access),
    listMembers: (organizationId, listId) =>
      (
        sql(
          `SELECT p.id FROM list_memberships m JOIN profiles p ON p.id = m.profile_id
           WHERE m.list_id = ? AND m.organization_id = ? AND p.status = 'active'
           ORDER BY m.added_at, m.seq`,
        ).all(listId, organizationId) as Array<{ id: string }>
      ).map((row) => row.id),
  };
}
