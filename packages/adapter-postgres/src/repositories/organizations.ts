import type { OrganizationRecord, OrganizationRepository } from "@tidings/core";
import type { Sql } from "../sql.js";

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

/** Organizations. */
export function organizationRepository(sql: Sql): OrganizationRepository {
  const t = sql.tables;
  return {
    async insert(org) {
      await sql.rows(`INSERT INTO ${t.organizations} (id, name, created_at) VALUES ($1, $2, $3)`, [
        org.id,
        org.name,
        org.createdAt,
      ]);
    },
    async get(id) {
      const rows = await sql.rows<OrganizationRow>(
        `SELECT id, name, created_at FROM ${t.organizations} WHERE id = $1`,
        [id],
      );
      return rows[0] === undefined ? null : toOrganization(rows[0]);
    },
  };
}
