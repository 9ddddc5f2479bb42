import type { IdempotencyRepository } from "@tidings/core";
import {
  insertColumns,
  insertPlaceholders,
  rowValues,
  sqlTables,
  toJsonOrNull,
} from "@tidings/core/sql";
import { atomically } from "../atomically.js";
import { records, select, sqliteCodec } from "../columns.js";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

const { idempotencyRecords } = sqlTables;

const HOLDER =
  "api_key_id = @apiKeyId AND endpoint = @endpoint AND key = @key AND locked_until = @lockedUntil";

/** Idempotency records, keyed by (API key, endpoint, Idempotency-Key). */
export function idempotencyRepository({
  db,
  sql,
}: SqliteConnection): SyncOf<IdempotencyRepository> {
  return {
    begin(record, now) {
      return atomically(db, sql, () => {
        const found = sql(
          `SELECT ${select.idempotencyRecords} FROM idempotency_records
           WHERE api_key_id = ? AND endpoint = ? AND key = ?`,
        ).get(record.apiKeyId, record.endpoint, record.key);
        const existing = found === undefined ? undefined : records.idempotency(found);
        if (existing === undefined || existing.expiresAt <= now) {
          sql(
            `INSERT OR REPLACE INTO idempotency_records (${insertColumns(idempotencyRecords)})
             VALUES ${insertPlaceholders(idempotencyRecords, sqliteCodec)}`,
          ).run(...rowValues(idempotencyRecords, record, sqliteCodec));
          return { outcome: "started" as const };
        }
        const abandoned =
          existing.state === "in_progress" &&
          existing.requestHash === record.requestHash &&
          existing.lockedUntil !== null &&
          existing.lockedUntil <= now;
        if (!abandoned) return { outcome: "exists" as const, record: existing };
        sql(
          `UPDATE idempotency_records SET locked_until = ?
           WHERE api_key_id = ? AND endpoint = ? AND key = ?`,
        ).run(record.lockedUntil, record.apiKeyId, record.endpoint, record.key);
        return {
          outcome: "resumed" as const,
          record: { ...existing, lockedUntil: record.lockedUntil },
        };
      });
    },
    markRecoveryPoint(apiKeyId, endpoint, key, lockedUntil, recoveryPoint) {
      const result = sql(
        `UPDATE idempotency_records SET recovery_point = @recoveryPoint WHERE ${HOLDER}`,
      ).run({ apiKeyId, endpoint, key, lockedUntil, recoveryPoint });
      return result.changes === 1;
    },
    complete(apiKeyId, endpoint, key, lockedUntil, response) {
      sql(
        `UPDATE idempotency_records SET state = 'completed', response = @response,
           locked_until = NULL
         WHERE ${HOLDER}`,
      ).run({ apiKeyId, endpoint, key, lockedUntil, response: toJsonOrNull(response) });
    },
    release(apiKeyId, endpoint, key, lockedUntil) {
      sql(`DELETE FROM idempotency_records WHERE ${HOLDER}`).run({
        apiKeyId,
        endpoint,
        key,
        lockedUntil,
      });
    },
  };
}
