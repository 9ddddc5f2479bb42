import type { ContactListRepository } from "@tidings/core";
import { insertColumns, sqlTables } from "@tidings/core/sql";
import { records, select } from "../columns.js";
import type { Sql } from "../sql.js";

/** Contact lists and their memberships. */
export function contactListRepository(sql: Sql): ContactListRepository {
  const t = sql.tables;
  const oneList = async (text: string, values: unknown[]) => {
    const rows = await sql.rows(text, values);
    return rows[0] === undefined ? null : records.contactList(rows[0]);
  };
  const ids = async (text: string, values: unknown[]) =>
    (await sql.rows<{ id: string }>(text, values)).map((row) => row.id);

  return {
    async insert(list) {
      // ON CONFLICT on the name only: a duplicate id is a bug and still raises.
      const rows = await sql.rows(
        `INSERT INTO ${t.contactLists} (${insertColumns(sqlTables.contactLists)}) VALUES ($1, $2, $3, $4)
         ON CONFLICT ON CONSTRAINT contact_lists_name DO NOTHING RETURNING id`,
        [list.id, list.organizationId, list.name, list.createdAt],
      );
      return rows.length === 1 ? undefined : "name_taken";
    },
    get: (organizationId, id) =>
      oneList(
        `SELECT ${select.contactLists} FROM ${t.contactLists} WHERE id = $1 AND organization_id = $2`,
        [id, organizationId],
      ),
    findByName: (organizationId, name) =>
      oneList(
        `SELECT ${select.contactLists} FROM ${t.contactLists} WHERE organization_id = $1 AND name = $2`,
        [organizationId, name],
      ),
    async list(organizationId) {
      const rows = await sql.rows(
        `SELECT ${select.contactLists} FROM ${t.contactLists} WHERE organization_id = $1
         ORDER BY created_at, id`,
        [organizationId],
      );
      return rows.map(records.contactList);
    },
    async addMember(membership) {
      const rows = await sql.rows(
        `INSERT INTO ${t.listMemberships} (${insertColumns(sqlTables.listMemberships)}) VALUES ($1, $2, $3, $4)
         ON CONFLICT ON CONSTRAINT list_memberships_pair DO NOTHING RETURNING list_id`,
        [membership.listId, membership.profileId, membership.organizationId, membership.addedAt],
      );
      return rows.length === 1;
    },
    async removeMember(organizationId, listId, profileId) {
      const rows = await sql.rows(
        `DELETE FROM ${t.listMemberships}
         WHERE list_id = $1 AND profile_id = $2 AND organization_id = $3 RETURNING list_id`,
        [listId, profileId, organizationId],
      );
      return rows.length > 0;
    },
    listMembers: (organizationId, listId) =>
      ids(
        `SELECT m.profile_id AS id FROM ${t.listMemberships} m
         JOIN ${t.profiles} p ON p.id = m.profile_id
         WHERE m.list_id = $1 AND m.organization_id = $2
           AND p.organization_id = $2 AND p.status = 'active'
         ORDER BY m.added_at, m.seq`,
        [listId, organizationId],
      ),
    listsOfProfile: (organizationId, profileId) =>
      ids(
        `SELECT list_id AS id FROM ${t.listMemberships}
         WHERE profile_id = $1 AND organization_id = $2 ORDER BY added_at, seq`,
        [profileId, organizationId],
      ),
  };
}
