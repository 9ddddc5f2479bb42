import type { IdempotencyRepository } from "@tidings/core";
import { insertColumns, insertPlaceholders, rowValues, sqlTables, toJson } from "@tidings/core/sql";
import { postgresCodec as codec, records, select } from "../columns.js";
import type { PgConnection } from "../sql.js";

const { idempotencyRecords } = sqlTables;

// A record can vanish between the refused insert and the read (its holder released it); then
// the insert is tried again. Each round needs another writer to win a race, so few suffice.
const MAX_ROUNDS = 5;

/** Matches the record of ($1, $2, $3) only for its holder ($4 = its `locked_until`). */
const HOLDER = "api_key_id = $1 AND endpoint = $2 AND key = $3 AND locked_until = $4";

/** Idempotency records, started atomically by INSERT … ON CONFLICT across processes. */
export function idempotencyRepository({ sql }: PgConnection): IdempotencyRepository {
  const t = sql.tables;
  return {
    async begin(record, now) {
      const keyOf = [record.apiKeyId, record.endpoint, record.key];
      for (let round = 0; round < MAX_ROUNDS; round++) {
        // Inserts, or replaces an expired record; a live one is left as it is.
        const started = await sql.rows(
          `INSERT INTO ${t.idempotencyRecords} AS r (${insertColumns(idempotencyRecords)})
           VALUES ${insertPlaceholders(idempotencyRecords, codec)}
           ON CONFLICT (api_key_id, endpoint, key) DO UPDATE SET
             request_hash = EXCLUDED.request_hash, state = EXCLUDED.state,
             response = EXCLUDED.response, locked_until = EXCLUDED.locked_until,
             recovery_point = EXCLUDED.recovery_point, created_at = EXCLUDED.created_at,
             expires_at = EXCLUDED.expires_at
           WHERE r.expires_at <= $${idempotencyRecords.columns.length + 1}
           RETURNING key`,
          [...rowValues(idempotencyRecords, record, codec), now],
        );
        if (started.length === 1) return { outcome: "started" };
        // An abandoned request of the same body: one caller takes it over.
        const resumed = await sql.rows(
          `UPDATE ${t.idempotencyRecords} SET locked_until = $4
           WHERE api_key_id = $1 AND endpoint = $2 AND key = $3 AND state = 'in_progress'
             AND request_hash = $5 AND locked_until <= $6 AND expires_at > $6
           RETURNING ${select.idempotencyRecords}`,
          [...keyOf, record.lockedUntil, record.requestHash, now],
        );
        if (resumed[0] !== undefined)
          return { outcome: "resumed", record: records.idempotency(resumed[0]) };
        const existing = await sql.rows(
          `SELECT ${select.idempotencyRecords} FROM ${t.idempotencyRecords}
           WHERE api_key_id = $1 AND endpoint = $2 AND key = $3`,
          keyOf,
        );
        if (existing[0] !== undefined)
          return { outcome: "exists", record: records.idempotency(existing[0]) };
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
    async markRecoveryPointAtCommit(apiKeyId, endpoint, key, lockedUntil, recoveryPoint) {
      // Goes out with the transaction's next statement or its COMMIT; a key taken over matches
      // no row, and the guard raises TK001, which fails the transaction.
      await sql.run(
        `WITH marked AS (
           UPDATE ${t.idempotencyRecords} SET recovery_point = $5 WHERE ${HOLDER} RETURNING key)
         SELECT ${t.idempotencyHeld}((SELECT count(*) FROM marked))`,
        [apiKeyId, endpoint, key, lockedUntil, recoveryPoint],
      );
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
