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
  locked_until: string | null;
  recovery_point: string | null;
  created_at: string;
  expires_at: string;
}

export const idempotencyColumns =
  "api_key_id, endpoint, key, request_hash, state, response::text AS response, locked_until, " +
  "recovery_point, created_at, expires_at";

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

// A record can vanish between the refused insert and the read (its holder released it); then
// the insert is tried again. Each round needs another writer to win a race, so few suffice.
const MAX_ROUNDS = 5;

/** Matches the record of ($1, $2, $3) only for its holder ($4 = its `locked_until`). */
const HOLDER = "api_key_id = $1 AND endpoint = $2 AND key = $3 AND locked_until = $4";

/** Idempotency records, started atomically by INSERT … ON CONFLICT across processes. */
export function idempotencyRepository(sql: Sql): IdempotencyRepository {
  const t = sql.tables;
  return {
    async begin(record, now) {
      const keyOf = [record.apiKeyId, record.endpoint, record.key];
      for (let round = 0; round < MAX_ROUNDS; round++) {
        // Inserts, or replaces an expired record; a live one is left as it is.
        const started = await sql.rows(
          `INSERT INTO ${t.idempotencyRecords} AS r (api_key_id, endpoint, key, request_hash,
             state, response, locked_until, recovery_point, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8, $9, $10)
           ON CONFLICT (api_key_id, endpoint, key) DO UPDATE SET
             request_hash = EXCLUDED.request_hash, state = EXCLUDED.state,
             response = EXCLUDED.response, locked_until = EXCLUDED.locked_until,
             recovery_point = EXCLUDED.recovery_point, created_at = EXCLUDED.created_at,
             expires_at = EXCLUDED.expires_at
           WHERE r.expires_at <= $11
           RETURNING key`,
          [
            ...keyOf,
            record.requestHash,
            record.state,
            toJsonOrNull(record.response),
            record.lockedUntil,
            record.recoveryPoint,
            record.createdAt,
            record.expiresAt,
            now,
          ],
        );
        if (started.length === 1) return { outcome: "started" };
        // An abandoned request of the same body: one caller takes it over.
        const resumed = await sql.rows<IdempotencyRow>(
          `UPDATE ${t.idempotencyRecords} SET locked_until = $4
           WHERE api_key_id = $1 AND endpoint = $2 AND key = $3 AND state = 'in_progress'
             AND request_hash = $5 AND locked_until <= $6 AND expires_at > $6
           RETURNING ${idempotencyColumns}`,
          [...keyOf, record.lockedUntil, record.requestHash, now],
        );
        if (resumed[0] !== undefined)
          return { outcome: "resumed", record: toIdempotency(resumed[0]) };
        const existing = await sql.rows<IdempotencyRow>(
          `SELECT ${idempotencyColumns} FROM ${t.idempotencyRecords}
           WHERE api_key_id = $1 AND endpoint = $2 AND key = $3`,
          keyOf,
        );
        if (existing[0] !== undefined)
          return { outcome: "exists", record: toIdempotency(existing[0]) };
      }
      throw new Error("idempotency.begin: the record kept changing under concurrent writers");
    },
    async markRecoveryPoint(apiKeyId, endpoint, key, lockedUntil, recoveryPoint) {
      const rows = await sql.rows(
        `UPDATE ${t.idempotencyRecords} SET recovery_point = $5 WHERE ${HOLDER} RETURNING key`,
        [apiKeyId, endpoint, key, lockedUntil, recoveryPoint],
      );
      return rows.length === 1;
    },
    async complete(apiKeyId, endpoint, key, lockedUntil, response) {
      await sql.rows(
        `UPDATE ${t.idempotencyRecords}
         SET state = 'completed', response = $5::text::jsonb, locked_until = NULL
         WHERE ${HOLDER}`,
        [apiKeyId, endpoint, key, lockedUntil, toJson(response)],
      );
    },
    async release(apiKeyId, endpoint, key, lockedUntil) {
      await sql.rows(`DELETE FROM ${t.idempotencyRecords} WHERE ${HOLDER}`, [
        apiKeyId,
        endpoint,
        key,
        lockedUntil,
      ]);
    },
  };
}
