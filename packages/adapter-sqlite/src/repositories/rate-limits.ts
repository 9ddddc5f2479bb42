import type { RateLimitRepository } from "@tidings/core";
import { atomically } from "../atomically.js";
import type { Sql, SqliteDatabase } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** Sliding-log rate limits: one row per allowed hit, pruned as it leaves the window. */
export function rateLimitRepository(db: SqliteDatabase, sql: Sql): SyncOf<RateLimitRepository> {
  return {
    hit(key, now, windowMs, limit) {
      const windowStart = now - windowMs;
      // Count-then-insert runs under the write lock, so two callers (or two processes) never
      // both take the last slot.
      return atomically(db, () => {
        sql("DELETE FROM rate_limit_hits WHERE key = ? AND at <= ?").run(key, windowStart);
        // Hits after `now` count too: a caller that read its clock later got the lock first.
        const { hits } = sql(
          "SELECT COUNT(*) AS hits FROM rate_limit_hits WHERE key = ? AND at > ?",
        ).get(key, windowStart) as { hits: number };
        const allowed = hits < limit;
        if (allowed) sql("INSERT INTO rate_limit_hits (key, at) VALUES (?, ?)").run(key, now);
        const inWindow = allowed ? hits + 1 : hits;
        const remaining = Math.max(0, limit - inWindow);
        if (remaining > 0) return { allowed, limit, remaining, resetMs: 0 };
        // Room for one more hit opens when enough of the oldest hits leave the window: the
        // (inWindow - limit + 1)-th oldest must have left, at its time + windowMs.
        const blocking = sql(
          `SELECT at FROM rate_limit_hits WHERE key = ? AND at > ?
           ORDER BY at LIMIT 1 OFFSET ?`,
        ).get(key, windowStart, Math.max(0, inWindow - limit)) as { at: number } | undefined;
        const resetMs = blocking === undefined ? 0 : Math.max(0, blocking.at + windowMs - now);
        return { allowed, limit, remaining, resetMs };
      });
    },
  };
}
