import type { IdempotencyRecord, IdempotencyRepository, StoredResponse } from "@tidings/core";
import { atomically } from "../atomically.js";
import { fromJsonOrNull, toJsonOrNull } from "../columns.js";
import type { Sql, SqliteDatabase } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

export interface IdempotencyRow {
  api_key_id: string;
  endpoint: string;
  key: string;
  request_hash: string;
  state: string;
  response: string | null;
  locked_until: string | null;
  recovery_point: string | null;
  created_at: string;
  expires_at: string;
}

export const idempotencyColumns =
  "api_key_id, endpoint, key, request_hash, state, response, locked_until, recovery_point, " +
  "created_at, expires_at";

export const toIdempotency = (row: IdempotencyRow): IdempotencyRecord => ({
  apiKeyId: row.api_key_id,
  endpoint: row.endpoint,
  key: row.key,
  requestHash: row.request_hash,
  state: row.state === "completed" ? "completed" : "in_progress",
  response: fromJsonOrNull<StoredResponse>(row.response),
  lockedUntil: row.locked_until,
  recoveryPoint: row.recovery_point,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

const HOLDER =
  "api_key_id = @apiKeyId AND endpoint = @endpoint AND key = @key AND locked_until = @lockedUntil";

/** Idempotency records, keyed by (API key, endpoint, Idempotency-Key). */
export function idempotencyRepository(db: SqliteDatabase, sql: Sql): SyncOf<IdempotencyRepository> {
  return {
    begin(record, now) {
      return atomically(db, () => {
        const existing = sql(
          `SELECT ${idempotencyColumns} FROM idempotency_records
           WHERE api_key_id = ? AND endpoint = ? AND key = ?`,
        ).get(record.apiKeyId, record.endpoint, record.key) as IdempotencyRow | undefined;
        if (existing === undefined || existing.expires_at <= now) {
          sql(
            `INSERT OR REPLACE INTO idempotency_records (${idempotencyColumns})
             VALUES (@apiKeyId, @endpoint, @key, @requestHash, @state, @response, @lockedUntil,
               @recoveryPoint, @createdAt, @expiresAt)`,
          ).run({ ...record, response: toJsonOrNull(record.response) });
          return { outcome: "started" as const };
        }
        const abandoned =
          existing.state === "in_progress" &&
          existing.request_hash === record.requestHash &&
          existing.locked_until !== null &&
          existing.locked_until <= now;
        if (!abandoned) return { outcome: "exists" as const, record: toIdempotency(existing) };
        sql(
          `UPDATE idempotency_records SET locked_until = ?
           WHERE api_key_id = ? AND endpoint = ? AND key = ?`,
        ).run(record.lockedUntil, record.apiKeyId, record.endpoint, record.key);
        return {
          outcome: "resumed" as const,
          record: toIdempotency({ ...existing, locked_until: record.lockedUntil }),
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
