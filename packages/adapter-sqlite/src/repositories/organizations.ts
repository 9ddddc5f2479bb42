import type { OrganizationRepository } from "@tidings/core";
import { records, select } from "../columns.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

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
      const row = sql(`SELECT ${select.organizations} FROM organizations WHERE id = ?`).get(id);
      return row === undefined ? null : records.organization(row);
    },
  };
}
