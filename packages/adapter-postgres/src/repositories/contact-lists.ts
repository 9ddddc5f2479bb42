import type { ContactListRepository } from "@tidings/core";
import { contactListRows } from "@tidings/core/sql";
import type { PgConnection } from "../sql.js";

/** Contact lists and their memberships. */
export function contactListRepository({ access, sql }: PgConnection): ContactListRepository {
  const t = sql.tables;
  return {
    ...contactListRows(access),
    listMembers: async (organizationId, listId) =>
      (
        await sql.rows<{ id: string }>(
          `SELECT m.profile_id AS id FROM ${t.listMemberships} m
           JOIN ${t.profiles} p ON p.id = m.profile_id
           WHERE m.list_id = $1 AND m.organization_id = $2
             AND p.organization_id = $2 AND p.status = 'active'
           ORDER BY m.added_at, m.seq`,
          [listId, organizationId],
        )
      ).map((row) => row.id),
  };
}
