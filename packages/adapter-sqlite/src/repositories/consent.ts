import type { ConsentHistoryRepository } from "@tidings/core";
import { insertColumns, sqlTables } from "@tidings/core/sql";
import { records, select, toFlag, toFlagOrNull } from "../columns.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** The append-only history of consent flag changes. */
export function consentRepository(sql: Sql): SyncOf<ConsentHistoryRepository> {
  return {
    insert(change) {
      sql(
        `INSERT INTO consent_changes (${insertColumns(sqlTables.consentChanges)})
         VALUES (@id, @organizationId, @profileId, @channel, @oldValue, @newValue, @apiKeyId,
           @changedAt)`,
      ).run({
        ...change,
        oldValue: toFlagOrNull(change.oldValue),
        newValue: toFlag(change.newValue),
      });
    },
    listForProfile(organizationId, profileId) {
      const rows = sql(
        `SELECT ${select.consentChanges} FROM consent_changes
         WHERE profile_id = ? AND organization_id = ? ORDER BY changed_at, id`,
      ).all(profileId, organizationId);
      return rows.map(records.consentChange);
    },
  };
}
