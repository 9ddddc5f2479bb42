import type { ConsoleSessionRepository } from "@tidings/core";
import { consoleSessionRows } from "@tidings/core/sql";
import type { PgConnection } from "../sql.js";

/** Console sign-in tokens and sessions. */
export function consoleSessionRepository({ access, sql }: PgConnection): ConsoleSessionRepository {
  return {
    ...consoleSessionRows(access),
    async touchSession(idHash, lastSeenAt, expiresAt) {
      const rows = await sql.rows(
        `UPDATE ${sql.tables.consoleSessions}
         SET last_seen_at = GREATEST(last_seen_at, $2), expires_at = GREATEST(expires_at, $3)
         WHERE id_hash = $1 AND expires_at > $2
         RETURNING 1`,
        [idHash, lastSeenAt, expiresAt],
      );
      return rows.length === 1;
    },
  };
}
