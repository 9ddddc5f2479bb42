import type { IdempotencyRecord, IdempotencyRepository, StoredResponse } from "@tidings/core";
import { fromJsonOrNull, toJson, toJsonOrNull } from "../columns.js";
import type { Sql } from "../sql.js";

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
  "api_key_id, endpoint, key, request_hash, state, response::text AS response, created_at, " +
  "expires_at";

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

// A record can vanish between the refused insert and the read (its owner released it); then
// the insert is tried again. Each round needs another writer to win a race, so few suffice.
const MAX_ROUNDS = 5;

/** Idempotency records, started atomically by INSERT … ON CONFLICT across processes. */
export function idempotencyRepository(sql: Sql): IdempotencyRepository {
  const t = sql.tables;
  return {
    async begin(record, now) {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        // Inserts, or replaces an expired record; an unexpired one is left as it is.
        const started = await sql.rows(
          `INSERT INTO ${t.idempotencyRecords} AS r (api_key_id, endpoint, key, request_hash,
             state, response, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8)
           ON CONFLICT (api_key_id, endpoint, key) DO UPDATE SET
             request_hash = EXCLUDED.request_hash, state = EXCLUDED.state,
             response = EXCLUDED.response, created_at = EXCLUDED.created_at,
             expires_at = EXCLUDED.expires_at
           WHERE r.expires_at <= $9
           RETURNING key`,
          [
            record.apiKeyId,
            record.endpoint,
            record.key,
            record.requestHash,
            record.state,
            toJsonOrNull(record.response),
            record.createdAt,
            record.expiresAt,
            now,
          ],
        );
        if (started.length === 1) return "started";
        const existing = await sql.rows<IdempotencyRow>(
          `SELECT ${idempotencyColumns} FROM ${t.idempotencyRecords}
           WHERE api_key_id = $1 AND endpoint = $2 AND key = $3`,
          [record.apiKeyId, record.endpoint, record.key],
        );
        if (existing[0] !== undefined) return toIdempotency(existing[0]);
      }
      throw new Error("idempotency.begin: the record kept changing under concurrent writers");
    },
    async complete(apiKeyId, endpoint, key, response) {
      await sql.rows(
        `UPDATE ${t.idempotencyRecords} SET state = 'completed', response = $4::text::jsonb
         WHERE api_key_id = $1 AND endpoint = $2 AND key = $3`,
        [apiKeyId, endpoint, key, toJson(response)],
      );
    },
    async release(apiKeyId, endpoint, key) {
      await sql.rows(
        `DELETE FROM ${t.idempotencyRecords} WHERE api_key_id = $1 AND endpoint = $2 AND key = $3`,
        [apiKeyId, endpoint, key],
      );
    },
  };
}
