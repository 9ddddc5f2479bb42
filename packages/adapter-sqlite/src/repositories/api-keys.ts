import type { ApiKeyRecord, ApiKeyRepository, Scope } from "@tidings/core";
import { fromJson, toJson } from "../columns.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

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
  "id, organization_id, secret_hash, webhook_signing_secret_sealed, scopes, expires_at, " +
  "revoked_at, created_at";

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

/** API keys; looked up by id alone when authenticating. */
export function apiKeyRepository(sql: Sql): SyncOf<ApiKeyRepository> {
  return {
    insert(key) {
      sql(
        `INSERT INTO api_keys (${apiKeyColumns})
         VALUES (@id, @organizationId, @secretHash, @webhookSigningSecretSealed, @scopes,
           @expiresAt, @revokedAt, @createdAt)`,
      ).run({ ...key, scopes: toJson(key.scopes) });
    },
    get(id) {
      const row = sql(`SELECT ${apiKeyColumns} FROM api_keys WHERE id = ?`).get(id);
      return row === undefined ? null : toApiKey(row as ApiKeyRow);
    },
    list(organizationId) {
      const rows = sql(
        `SELECT ${apiKeyColumns} FROM api_keys WHERE organization_id = ?
         ORDER BY created_at, id`,
      ).all(organizationId) as ApiKeyRow[];
      return rows.map(toApiKey);
    },
    revoke(id, at) {
      const result = sql(
        "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
      ).run(at, id);
      return result.changes === 1;
    },
  };
}
