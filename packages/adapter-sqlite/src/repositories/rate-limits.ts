import type { RateLimitRepository } from "@tidings/core";
import { atomically } from "../atomically.js";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/**
 * Sliding-log rate limits: one row per allowed hit, pruned as it leaves the window, and a count
 * per key that triggers keep (migration 6).
 */
export function rateLimitRepository({ db, sql }: SqliteConnection): SyncOf<RateLimitRepository> {
  return {
    hit(key, now, windowMs, limit) {
      const windowStart = now - windowMs;
      // Count-then-insert runs under the write lock, so two callers (or two processes) never
      // both take the last slot.
      return atomically(db, () => {
        sql("DELETE FROM rate_limit_hits WHERE key = ? AND at <= ?").run(key, windowStart);
        // Every hit left is in the window now, so the key's count (kept by triggers) is the
        // window's: one row read, where counting the rows would walk thousands under a high
        // limit. Hits after `now` count too: a caller that read its clock later got the lock
        // first.
        const counted = sql(
          `SELECT (SELECT hits FROM rate_limit_counts WHERE key = ?) AS hits,
                  (SELECT MIN(at) FROM rate_limit_hits WHERE key = ?) AS oldest`,
        ).get(key, key) as { hits: number | null; oldest: number | null };
        const hits = counted.hits ?? 0;
        const allowed = hits < limit;
        if (allowed) sql("INSERT INTO rate_limit_hits (key, at) VALUES (?, ?)").run(key, now);
        const inWindow = allowed ? hits + 1 : hits;
        const remaining = Math.max(0, limit - inWindow);
        // `remaining` goes up when the oldest counted hit leaves the window. When more hits are
        // counted than `limit` allows (it was lowered), the (inWindow - limit + 1)-th oldest
        // must leave for one more to fit.
        let leaving: number | undefined;
        if (inWindow > limit) {
          leaving = (
            sql(
              `SELECT at FROM rate_limit_hits WHERE key = ? AND at > ?
               ORDER BY at LIMIT 1 OFFSET ?`,
            ).get(key, windowStart, inWindow - limit) as { at: number } | undefined
          )?.at;
        } else if (inWindow > 0) {
          // The oldest stored hit, or this one when it is older (a stored hit may be stamped
          // after `now`) or the only one.
          const stored = counted.oldest ?? Number.POSITIVE_INFINITY;
          leaving = allowed ? Math.min(stored, now) : stored;
        }
        const resetMs = leaving === undefined ? 0 : leaving + windowMs - now;
        return { allowed, limit, remaining, resetMs };
      });
    },
  };
}
