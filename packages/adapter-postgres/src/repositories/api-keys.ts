import type { ApiKeyRepository } from "@tidings/core";
import { insertColumns, sqlTables, toJson } from "@tidings/core/sql";
import { select as columns, records } from "../columns.js";
import type { Sql } from "../sql.js";

/** API keys: hashed secrets, sealed webhook signing secrets, scopes. */
export function apiKeyRepository(sql: Sql): ApiKeyRepository {
  const t = sql.tables;
  const select = `SELECT ${columns.apiKeys} FROM ${t.apiKeys}`;
  return {
    async insert(key) {
      await sql.rows(
        `INSERT INTO ${t.apiKeys} (${insertColumns(sqlTables.apiKeys)})
         VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, $7, $8, $9)`,
        [
          key.id,
          key.organizationId,
          key.secretHash,
          key.webhookSigningSecretSealed,
          toJson(key.scopes),
          key.expiresAt,
          key.revokedAt,
          key.createdAt,
          key.name,
        ],
      );
    },
    async get(id) {
      const rows = await sql.rows(`${select} WHERE id = $1`, [id]);
      return rows[0] === undefined ? null : records.apiKey(rows[0]);
    },
    async list(organizationId) {
      const rows = await sql.rows(`${select} WHERE organization_id = $1 ORDER BY created_at, id`, [
        organizationId,
      ]);
      return rows.map(records.apiKey);
    },
    async revoke(id, at) {
      const rows = await sql.rows(
        `UPDATE ${t.apiKeys} SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL
         RETURNING id`,
        [id, at],
      );
      return rows.length === 1;
    },
  };
}
