import type { OrganizationRepository } from "@tidings/core";
import { insertColumns, sqlTables } from "@tidings/core/sql";
import { records, select } from "../columns.js";
import type { Sql } from "../sql.js";

/** Organizations. */
export function organizationRepository(sql: Sql): OrganizationRepository {
  const t = sql.tables;
  return {
    async insert(org) {
      await sql.rows(
        `INSERT INTO ${t.organizations} (${insertColumns(sqlTables.organizations)}) VALUES ($1, $2, $3)`,
        [org.id, org.name, org.createdAt],
      );
    },
    async get(id) {
      const rows = await sql.rows(
        `SELECT ${select.organizations} FROM ${t.organizations} WHERE id = $1`,
        [id],
      );
      return rows[0] === undefined ? null : records.organization(rows[0]);
    },
  };
}
