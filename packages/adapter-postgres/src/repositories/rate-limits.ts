import type { DestinationCounter, RateLimitDecision, RateLimitRepository } from "@tidings/core";
import { fromBigint } from "../columns.js";
import type { PgConnection } from "../sql.js";

/** What `rate_limit_hit` (and `send_hit` after the key's hit) answers of the key's window. */
interface KeyWindow {
  hits: unknown;
  oldest: unknown;
  leaving: unknown;
}

/** The key's decision from what the function found of its window. */
function keyDecision(
  window: KeyWindow | undefined,
  now: number,
  windowMs: number,
  limit: number,
): RateLimitDecision {
  const hits = Number(window?.hits ?? 0);
  const allowed = hits < limit;
  const inWindow = allowed ? hits + 1 : hits;
  // `remaining` goes up when the oldest counted hit leaves; when more are counted than
  // `limit` allows (it was lowered), when enough of the oldest have left for one to fit
  // (the function's `leaving`).
  let leaving: number | undefined;
  if (inWindow <= limit) {
    const oldest = window?.oldest == null ? undefined : fromBigint(window.oldest);
    leaving = allowed && (oldest === undefined || now < oldest) ? now : oldest;
  } else {
    leaving = window?.leaving == null ? undefined : fromBigint(window.leaving);
  }
  const resetMs = leaving === undefined ? 0 : leaving + windowMs - now;
  return { allowed, limit, remaining: Math.max(0, limit - inWindow), resetMs };
}

/** The counters as `send_hit` reads them (migration 17). */
const countersJson = (counters: readonly DestinationCounter[]): string =>
  JSON.stringify(
    counters.map((counter) =>
      "windows" in counter
        ? { k: counter.key, w: counter.windows.map((w) => [w.windowMs, w.limit]) }
        : { k: counter.key, t: [counter.total.limit, counter.total.until] },
    ),
  );

/**
 * A sliding-log rate limiter shared by every process: each hit is a row, and a transaction-level
 * advisory lock on the key makes count-then-insert atomic across connections. The whole hit is
 * one call of the schema's `rate_limit_hit` function (migration 6): one round trip. It reads the
 * key's count that triggers keep (migration 9) rather than counting the window's rows; a
 * refusal counts them at most once per window, to put a wrong count right (migration 13), and at once when it plainly cannot be right (migration 16).
 * A send with destination limits makes its hit through `send_hit` (migration 17) instead, which
 * checks and counts the destination in the same statement: still one round trip.
 */
export function rateLimitRepository({ sql }: PgConnection): RateLimitRepository {
  const t = sql.tables;
  return {
    hit: async (key, now, windowMs, limit) => {
      // A hit in a transaction of its own commits without waiting for the WAL to reach the
      // disk, so the key's lock is not held across an fsync: hits of one key follow each
      // other as fast as the statements run. Nothing acknowledged can lose its hit: the send
      // it allowed commits later, and flushing that commit flushes everything before it in
      // the WAL. Only a hit whose request never committed anything can vanish in a crash.
      // Inside a caller's transaction the caller's durability is left alone.
      const ownTransaction = !sql.inTransaction;
      // Hits at or before the window's open edge can never count again for a later `now`. Hits
      // after `now` do count: another process read its clock later but got the lock first.
      // Counted, not fetched: with a high limit the window may hold thousands of hits.
      const [window] = await sql.rows<KeyWindow>(
        `SELECT hits, oldest, leaving FROM ${t.rateLimitHit}($1, $2, $3, $4, $5, $6)`,
        [`tidings.rate:${t.schema}`, key, now - windowMs, now, limit, ownTransaction],
      );
      return keyDecision(window, now, windowMs, limit);
    },
    hitSend: async ({ now, key, destinations }) => {
      const ownTransaction = !sql.inTransaction;
      const [answer] = await sql.rows<KeyWindow & { refused_by: unknown; wait_ms: unknown }>(
        `SELECT refused_by, wait_ms, hits, oldest, leaving
         FROM ${t.sendHit}($1, $2, $3, $4, $5, $6, $7)`,
        [
          `tidings.rate:${t.schema}`,
          key.key,
          now - key.windowMs,
          now,
          key.limit,
          ownTransaction,
          countersJson(destinations),
        ],
      );
      if (answer?.refused_by != null) {
        return {
          refusedBy: Number(answer.refused_by),
          resetMs: answer.wait_ms == null ? 1000 : fromBigint(answer.wait_ms),
        };
      }
      return { refusedBy: null, key: keyDecision(answer, now, key.windowMs, key.limit) };
    },
  };
}
