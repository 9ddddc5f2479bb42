import type {
  ConsoleSessionRecord,
  ConsoleSessionRepository,
  ConsoleSignInTokenRecord,
} from "@tidings/core";
import type { Sql } from "../sql.js";

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

/** Console sign-in tokens and sessions; a token is spent by the one DELETE that removes it. */
export function consoleSessionRepository(sql: Sql): ConsoleSessionRepository {
  const t = sql.tables;
  return {
    async insertSignInToken(token) {
      await sql.rows(
        `INSERT INTO ${t.consoleSignInTokens} (${tokenColumns}) VALUES ($1, $2, $3, $4)`,
        [token.tokenHash, token.organizationId, token.createdAt, token.expiresAt],
      );
    },
    async findSignInToken(tokenHash, now) {
      const rows = await sql.rows<TokenRow>(
        `SELECT ${tokenColumns} FROM ${t.consoleSignInTokens}
         WHERE token_hash = $1 AND expires_at > $2`,
        [tokenHash, now],
      );
      return rows[0] === undefined ? null : toToken(rows[0]);
    },
    async spendSignInToken(tokenHash, now) {
      const rows = await sql.rows<TokenRow>(
        `DELETE FROM ${t.consoleSignInTokens} WHERE token_hash = $1 AND expires_at > $2
         RETURNING ${tokenColumns}`,
        [tokenHash, now],
      );
      return rows[0] === undefined ? null : toToken(rows[0]);
    },
    async insertSession(session) {
      await sql.rows(
        `INSERT INTO ${t.consoleSessions} (${sessionColumns}) VALUES ($1, $2, $3, $4, $5)`,
        [
          session.idHash,
          session.organizationId,
          session.createdAt,
          session.lastSeenAt,
          session.expiresAt,
        ],
      );
    },
    async findSession(idHash, now) {
      const rows = await sql.rows<SessionRow>(
        `SELECT ${sessionColumns} FROM ${t.consoleSessions} WHERE id_hash = $1 AND expires_at > $2`,
        [idHash, now],
      );
      return rows[0] === undefined ? null : toSession(rows[0]);
    },
    async touchSession(idHash, lastSeenAt, expiresAt) {
      const rows = await sql.rows(
        `UPDATE ${t.consoleSessions}
         SET last_seen_at = GREATEST(last_seen_at, $2), expires_at = GREATEST(expires_at, $3)
         WHERE id_hash = $1 AND expires_at > $2
         RETURNING 1`,
        [idHash, lastSeenAt, expiresAt],
      );
      return rows.length === 1;
    },
    async deleteSession(idHash) {
      const rows = await sql.rows(
        `DELETE FROM ${t.consoleSessions} WHERE id_hash = $1 RETURNING 1`,
        [idHash],
      );
      return rows.length === 1;
    },
    async deleteOrganizationSessions(organizationId) {
      await sql.rows(`DELETE FROM ${t.consoleSignInTokens} WHERE organization_id = $1`, [
        organizationId,
      ]);
      const rows = await sql.rows(
        `DELETE FROM ${t.consoleSessions} WHERE organization_id = $1 RETURNING 1`,
        [organizationId],
      );
      return rows.length;
    },
  };
}
