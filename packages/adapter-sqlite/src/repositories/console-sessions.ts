import type {
  ConsoleSessionRecord,
  ConsoleSessionRepository,
  ConsoleSignInTokenRecord,
} from "@tidings/core";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

interface TokenRow {
  token_hash: string;
  organization_id: string;
  created_at: string;
  expires_at: string;
}

interface SessionRow {
  id_hash: string;
  organization_id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

const tokenColumns = "token_hash, organization_id, created_at, expires_at";
const sessionColumns = "id_hash, organization_id, created_at, last_seen_at, expires_at";

const toToken = (row: TokenRow): ConsoleSignInTokenRecord => ({
  tokenHash: row.token_hash,
  organizationId: row.organization_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

const toSession = (row: SessionRow): ConsoleSessionRecord => ({
  idHash: row.id_hash,
  organizationId: row.organization_id,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
  expiresAt: row.expires_at,
});

/** Console sign-in tokens and sessions; timestamps are fixed-width ISO text, so they compare. */
export function consoleSessionRepository(sql: Sql): SyncOf<ConsoleSessionRepository> {
  return {
    insertSignInToken(token) {
      sql(
        `INSERT INTO console_sign_in_tokens (${tokenColumns})
         VALUES (@tokenHash, @organizationId, @createdAt, @expiresAt)`,
      ).run(token);
    },
    findSignInToken(tokenHash, now) {
      const row = sql(
        `SELECT ${tokenColumns} FROM console_sign_in_tokens
         WHERE token_hash = ? AND expires_at > ?`,
      ).get(tokenHash, now);
      return row === undefined ? null : toToken(row as TokenRow);
    },
    spendSignInToken(tokenHash, now) {
      const row = sql(
        `DELETE FROM console_sign_in_tokens WHERE token_hash = ? AND expires_at > ?
         RETURNING ${tokenColumns}`,
      ).get(tokenHash, now);
      return row === undefined ? null : toToken(row as TokenRow);
    },
    insertSession(session) {
      sql(
        `INSERT INTO console_sessions (${sessionColumns})
         VALUES (@idHash, @organizationId, @createdAt, @lastSeenAt, @expiresAt)`,
      ).run(session);
    },
    findSession(idHash, now) {
      const row = sql(
        `SELECT ${sessionColumns} FROM console_sessions WHERE id_hash = ? AND expires_at > ?`,
      ).get(idHash, now);
      return row === undefined ? null : toSession(row as SessionRow);
    },
    touchSession(idHash, lastSeenAt, expiresAt) {
      const result = sql(
        `UPDATE console_sessions
         SET last_seen_at = max(last_seen_at, @lastSeenAt), expires_at = max(expires_at, @expiresAt)
         WHERE id_hash = @idHash AND expires_at > @lastSeenAt`,
      ).run({ idHash, lastSeenAt, expiresAt });
      return result.changes === 1;
    },
    deleteSession(idHash) {
      return sql("DELETE FROM console_sessions WHERE id_hash = ?").run(idHash).changes === 1;
    },
    deleteOrganizationSessions(organizationId) {
      sql("DELETE FROM console_sign_in_tokens WHERE organization_id = ?").run(organizationId);
      return sql("DELETE FROM console_sessions WHERE organization_id = ?").run(organizationId)
        .changes;
    },
  };
}
