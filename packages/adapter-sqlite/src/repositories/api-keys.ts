import type { ApiKeyRepository } from "@tidings/core";
import { insertColumns, sqlTables, toJson } from "@tidings/core/sql";
import { records, select } from "../columns.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** API keys; looked up by id alone when authenticating. */
export function apiKeyRepository(sql: Sql): SyncOf<ApiKeyRepository> {
  return {
    insert(key) {
      sql(
        `INSERT INTO api_keys (${insertColumns(sqlTables.apiKeys)})
         VALUES (@id, @organizationId, @secretHash, @webhookSigningSecretSealed, @scopes,
           @expiresAt, @revokedAt, @createdAt, @name)`,
      ).run({ ...key, scopes: toJson(key.scopes) });
    },
    get(id) {
      const row = sql(`SELECT ${select.apiKeys} FROM api_keys WHERE id = ?`).get(id);
      return row === undefined ? null : records.apiKey(row);
    },
    list(organizationId) {
      const rows = sql(
        `SELECT ${select.apiKeys} FROM api_keys WHERE organization_id = ?
         ORDER BY created_at, id`,
      ).all(organizationId);
      return rows.map(records.apiKey);
    },
    revoke(id, at) {
      const result = sql(
        "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
      ).run(at, id);
      return result.changes === 1;
    },
  };
}
