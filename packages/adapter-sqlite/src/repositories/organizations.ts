import type { OrganizationRecord, OrganizationRepository } from "@tidings/core";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

interface OrganizationRow {
  id: string;
  name: string;
  created_at: string;
}

const toOrganization = (row: OrganizationRow): OrganizationRecord => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
});

/** Organizations: just their id, name and creation time. */
export function organizationRepository(sql: Sql): SyncOf<OrganizationRepository> {
  return {
    insert(org) {
      sql("INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)").run(
        org.id,
        org.name,
        org.createdAt,
      );
    },
    get(id) {
      const row = sql("SELECT id, name, created_at FROM organizations WHERE id = ?").get(id);
      return row === undefined ? null : toOrganization(row as OrganizationRow);
    },
  };
}
