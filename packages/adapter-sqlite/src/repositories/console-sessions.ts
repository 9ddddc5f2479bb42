import type { ConsoleSessionRepository } from "@tidings/core";
import { consoleSessionRows } from "@tidings/core/sql";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** Console sign-in tokens and sessions. */
export function consoleSessionRepository({
  access,
  sql,
}: SqliteConnection): SyncOf<ConsoleSessionRepository> {
  return {
    ...consoleSessionRows(access),
    touchSession(idHash, lastSeenAt, expiresAt) {
      const result = sql(
        `UPDATE console_sessions
         SET last_seen_at = max(last_seen_at, ?), expires_at = max(expires_at, ?)
         WHERE id_hash = ? AND expires_at > ?`,
      ).run(lastSeenAt, expiresAt, idHash, lastSeenAt);
      return result.changes === 1;
    },
  };
}
