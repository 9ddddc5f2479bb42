import type { ConsentHistoryRepository } from "@tidings/core";
import { insertColumns, sqlTables } from "@tidings/core/sql";
import { records, select } from "../columns.js";
import type { Sql } from "../sql.js";

/** The consent history: an append-only log of every consent flag change. */
export function consentRepository(sql: Sql): ConsentHistoryRepository {
  const t = sql.tables;
  return {
    async insert(change) {
      await sql.rows(
        `INSERT INTO ${t.consentChanges} (${insertColumns(sqlTables.consentChanges)})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          change.id,
          change.organizationId,
          change.profileId,
          change.channel,
          change.oldValue,
          change.newValue,
          change.apiKeyId,
          change.changedAt,
        ],
      );
    },
    async listForProfile(organizationId, profileId) {
      const rows = await sql.rows(
        `SELECT ${select.consentChanges} FROM ${t.consentChanges}
         WHERE profile_id = $1 AND organization_id = $2 ORDER BY changed_at, id`,
        [profileId, organizationId],
      );
      return rows.map(records.consentChange);
    },
  };
}
