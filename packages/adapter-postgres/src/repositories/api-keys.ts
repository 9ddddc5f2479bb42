import type { ApiKeyRecord, ApiKeyRepository, Scope } from "@tidings/core";
import { fromJson, toJson } from "../columns.js";
import type { Sql } from "../sql.js";

export interface ApiKeyRow {
  id: string;
  organization_id: string;
  secret_hash: string;
  webhook_signing_secret_sealed: string;
  scopes: string;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

export const apiKeyColumns =
  "id, organization_id, secret_hash, webhook_signing_secret_sealed, scopes::text AS scopes, " +
  "expires_at, revoked_at, created_at";

export const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  secretHash: row.secret_hash,
  webhookSigningSecretSealed: row.webhook_signing_secret_sealed,
  scopes: fromJson<Scope[]>(row.scopes),
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  createdAt: row.created_at,
});

/** API keys: hashed secrets, sealed webhook signing secrets, scopes. */
export function apiKeyRepository(sql: Sql): ApiKeyRepository {
  const t = sql.tables;
  const select = `SELECT ${apiKeyColumns} FROM ${t.apiKeys}`;
  return {
    async insert(key) {
      await sql.rows(
        `INSERT INTO ${t.apiKeys} (id, organization_id, secret_hash,
           webhook_signing_secret_sealed, scopes, expires_at, revoked_at, created_at)
         VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, $7, $8)`,
        [
          key.id,
          key.organizationId,
          key.secretHash,
          key.webhookSigningSecretSealed,
          toJson(key.scopes),
          key.expiresAt,
          key.revokedAt,
          key.createdAt,
        ],
      );
    },
    async get(id) {
      const rows = await sql.rows<ApiKeyRow>(`${select} WHERE id = $1`, [id]);
      return rows[0] === undefined ? null : toApiKey(rows[0]);
    },
    async list(organizationId) {
      const rows = await sql.rows<ApiKeyRow>(
        `${select} WHERE organization_id = $1 ORDER BY created_at, id`,
        [organizationId],
      );
      return rows.map(toApiKey);
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
