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
  created_at: string;
  expires_at: string;
}

export const idempotencyColumns =
  "api_key_id, endpoint, key, request_hash, state, response, created_at, expires_at";

export const toIdempotency = (row: IdempotencyRow): IdempotencyRecord => ({
  apiKeyId: row.api_key_id,
  endpoint: row.endpoint,
  key: row.key,
  requestHash: row.request_hash,
  state: row.state === "completed" ? "completed" : "in_progress",
  response: fromJsonOrNull<StoredResponse>(row.response),
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** Idempotency records, keyed by (API key, endpoint, Idempotency-Key). */
export function idempotencyRepository(db: SqliteDatabase, sql: Sql): SyncOf<IdempotencyRepository> {
  return {
    begin(record, now) {
      return atomically(db, () => {
        const existing = sql(
          `SELECT ${idempotencyColumns} FROM idempotency_records
           WHERE api_key_id = ? AND endpoint = ? AND key = ?`,
        ).get(record.apiKeyId, record.endpoint, record.key) as IdempotencyRow | undefined;
        if (existing !== undefined && existing.expires_at > now) return toIdempotency(existing);
        // Absent or expired: (re)start it.
        sql(
          `INSERT OR REPLACE INTO idempotency_records (${idempotencyColumns})
           VALUES (@apiKeyId, @endpoint, @key, @requestHash, @state, @response, @createdAt,
             @expiresAt)`,
        ).run({ ...record, response: toJsonOrNull(record.response) });
        return "started" as const;
      });
    },
    complete(apiKeyId, endpoint, key, response) {
      sql(
        `UPDATE idempotency_records SET state = 'completed', response = ?
         WHERE api_key_id = ? AND endpoint = ? AND key = ?`,
      ).run(toJsonOrNull(response), apiKeyId, endpoint, key);
    },
    release(apiKeyId, endpoint, key) {
      sql("DELETE FROM idempotency_records WHERE api_key_id = ? AND endpoint = ? AND key = ?").run(
        apiKeyId,
        endpoint,
        key,
      );
    },
  };
}
