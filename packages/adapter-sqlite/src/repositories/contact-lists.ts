import type { ContactListRepository } from "@tidings/core";
import { insertColumns, sqlTables } from "@tidings/core/sql";
import { isUniqueViolation, records, select } from "../columns.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

const ids = (rows: unknown[]): string[] => (rows as Array<{ id: string }>).map((row) => row.id);

/** Contact lists (names unique per organization) and their memberships. */
export function contactListRepository(sql: Sql): SyncOf<ContactListRepository> {
  const one = (row: unknown) => (row === undefined ? null : records.contactList(row));
  return {
    insert(list) {
      try {
        sql(
          `INSERT INTO contact_lists (${insertColumns(sqlTables.contactLists)}) VALUES (?, ?, ?, ?)`,
        ).run(list.id, list.organizationId, list.name, list.createdAt);
      } catch (error) {
        if (isUniqueViolation(error, "contact_lists.name")) return "name_taken";
        throw error;
      }
    },
    get(organizationId, id) {
      return one(
        sql(
          `SELECT ${select.contactLists} FROM contact_lists WHERE id = ? AND organization_id = ?`,
        ).get(id, organizationId),
      );
    },
    findByName(organizationId, name) {
      return one(
        sql(
          `SELECT ${select.contactLists} FROM contact_lists WHERE organization_id = ? AND name = ?`,
        ).get(organizationId, name),
      );
    },
    list(organizationId) {
      const rows = sql(
        `SELECT ${select.contactLists} FROM contact_lists WHERE organization_id = ?
         ORDER BY created_at, id`,
      ).all(organizationId);
      return rows.map(records.contactList);
    },
    addMember(membership) {
      const result = sql(
        `INSERT INTO list_memberships (${insertColumns(sqlTables.listMemberships)})
         VALUES (?, ?, ?, ?) ON CONFLICT (list_id, profile_id) DO NOTHING`,
      ).run(membership.listId, membership.profileId, membership.organizationId, membership.addedAt);
      return result.changes === 1;
    },
    removeMember(organizationId, listId, profileId) {
      const result = sql(
        `DELETE FROM list_memberships
         WHERE list_id = ? AND profile_id = ? AND organization_id = ?`,
      ).run(listId, profileId, organizationId);
      return result.changes === 1;
    },
    listMembers(organizationId, listId) {
      return ids(
        sql(
          `SELECT p.id FROM list_memberships m JOIN profiles p ON p.id = m.profile_id
           WHERE m.list_id = ? AND m.organization_id = ? AND p.status = 'active'
           ORDER BY m.added_at, m.seq`,
        ).all(listId, organizationId),
      );
    },
    listsOfProfile(organizationId, profileId) {
      return ids(
        sql(
          `SELECT list_id AS id FROM list_memberships
           WHERE profile_id = ? AND organization_id = ? ORDER BY added_at, seq`,
        ).all(profileId, organizationId),
      );
    },
  };
}
