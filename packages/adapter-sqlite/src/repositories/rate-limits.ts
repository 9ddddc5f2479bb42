import type { RateLimitDecision, RateLimitRepository } from "@tidings/core";
import { destinationRefusal } from "@tidings/core";
import { atomically } from "../atomically.js";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/**
 * One read of a destination key's sliding windows: whether it holds hits older than the
 * longest window (`stale`), and each window's hits (`n0`, `n1`, …). A window holds no more hits
 * than its limit (a send that would pass it is refused and not counted; after a limit is
 * lowered, what the old one let through, until it leaves), so the read walks no more index
 * entries than the sends the longest window let through. Counted in a subquery with a `LIMIT`
 * of its own, the same windows took four times as long.
 */
const windowCountsText = (windows: number): string => `SELECT
  (SELECT 1 FROM destination_hits WHERE key = ? AND at <= ? LIMIT 1) AS stale,
  ${Array.from({ length: windows }, (_, i) => `count(*) FILTER (WHERE at > ?) AS n${i}`).join(",\n  ")}
FROM destination_hits WHERE key = ? AND at > ?`;
const windowCountsTexts: string[] = [];
const windowCounts = (windows: number): string =>
  (windowCountsTexts[windows] ??= windowCountsText(windows));

/**
 * Sliding-log rate limits: one row per allowed hit, pruned as it leaves the window, and a count
 * per key that triggers keep (migration 6).
 */
export function rateLimitRepository({ db, sql }: SqliteConnection): SyncOf<RateLimitRepository> {
  /** One hit on `key`, counted when it fits; run under the write lock. */
  const hitKey = (key: string, now: number, windowMs: number, limit: number): RateLimitDecision => {
    const windowStart = now - windowMs;
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
  };
  /**
   * How long until `key`'s sliding windows have room, `null` when they have it now: as
   * `destinationRefusal` decides from every hit, but counted by the index in one statement,
   * and the one whose leaving makes room read only when a window is full. The key's hits older
   * than its longest window go first, and only when there are any.
   */
  const windowsRefusal = (
    key: string,
    now: number,
    windows: ReadonlyArray<{ windowMs: number; limit: number }>,
  ): number | null => {
    if (windows.length === 0) return null;
    const oldest = now - Math.max(...windows.map((w) => w.windowMs));
    const counted = sql(windowCounts(windows.length)).get(
      key,
      oldest,
      ...windows.map((w) => now - w.windowMs),
      key,
      oldest,
    ) as Record<string, number | null>;
    if (counted.stale !== null) {
      sql("DELETE FROM destination_hits WHERE key = ? AND at <= ?").run(key, oldest);
    }
    let wait: number | null = null;
    for (const [index, { windowMs, limit }] of windows.entries()) {
      if ((counted[`n${index}`] ?? 0) < limit) continue;
      // Room again once the limit-th newest hit of the window has left it (a limit of 0:
      // a whole window from now).
      const leaving =
        limit === 0
          ? undefined
          : (
              sql(
                `SELECT at FROM destination_hits WHERE key = ? AND at > ?
           ORDER BY at DESC LIMIT 1 OFFSET ?`,
              ).get(key, now - windowMs, limit - 1) as { at: number } | undefined
            )?.at;
      const reset = Math.max(1, (leaving ?? now) + windowMs - now);
      wait = wait === null ? reset : Math.max(wait, reset);
    }
    return wait;
  };
  return {
    // Count-then-insert runs under the write lock, so two callers (or two processes) never
    // both take the last slot.
    hit: (key, now, windowMs, limit) =>
      atomically(db, sql, () => hitKey(key, now, windowMs, limit)),
    // A send's destination counters (migration 17) are checked and counted in the same write
    // transaction as its key's hit: nothing is counted when a counter is full, and the
    // destinations only when the key allows the send.
    hitSend: ({ now, key, destinations }) =>
      atomically(db, sql, () => {
        for (const [index, counter] of destinations.entries()) {
          let resetMs: number | null;
          if ("windows" in counter) {
            resetMs = windowsRefusal(counter.key, now, counter.windows);
          } else {
            const total = sql("SELECT n, until FROM destination_totals WHERE key = ?").get(
              counter.key,
            ) as { n: number; until: number } | undefined;
            resetMs = destinationRefusal(counter, now, [], total);
          }
          if (resetMs !== null) return { refusedBy: index, resetMs };
        }
        const decision = hitKey(key.key, now, key.windowMs, key.limit);
        if (decision.allowed) {
          for (const counter of destinations) {
            if ("windows" in counter) {
              sql("INSERT INTO destination_hits (key, at) VALUES (?, ?)").run(counter.key, now);
            } else {
              sql(
                `INSERT INTO destination_totals (key, n, until) VALUES (?, 1, ?)
                 ON CONFLICT (key) DO UPDATE SET
                   n = CASE WHEN until > ? THEN n + 1 ELSE 1 END, until = excluded.until`,
              ).run(counter.key, counter.total.until, now);
            }
          }
        }
        return { refusedBy: null, key: decision };
      }),
  };
}
