import type { RateLimitRepository } from "@tidings/core";
import { fromBigint } from "../columns.js";
import type { PgConnection } from "../sql.js";

/**
 * A sliding-log rate limiter shared by every process: each hit is a row, and a transaction-level
 * advisory lock on the key makes count-then-insert atomic across connections.
 */
export function rateLimitRepository({ sql }: PgConnection): RateLimitRepository {
  const t = sql.tables;
  return {
    hit: (key, now, windowMs, limit) => {
      // A hit in a transaction of its own commits without waiting for the WAL to reach the
      // disk, so the key's lock is not held across an fsync: hits of one key follow each
      // other as fast as the statements run. Nothing acknowledged can lose its hit: the send
      // it allowed commits later, and flushing that commit flushes everything before it in
      // the WAL. Only a hit whose request never committed anything can vanish in a crash.
      const ownTransaction = !sql.inTransaction;
      return sql.atomic(async (tx) => {
        await tx.rows(
          `SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))${
            ownTransaction ? ", set_config('synchronous_commit', 'off', true)" : ""
          }`,
          [`tidings.rate:${t.schema}`, key],
        );
        // Taken after the lock, so this statement sees every hit committed before it. Hits at
        // or before the window's open edge can never count again for a later `now`. Hits after
        // `now` do count: another process read its clock later but got the lock first. Counted,
        // not fetched: with a high limit the window may hold thousands of hits. One statement
        // prunes, counts and adds this hit when it fits, so the lock is held for one round trip
        // and the COMMIT.
        const windowStart = now - windowMs;
        const [window] = await tx.rows<{ hits: unknown; oldest: unknown }>(
          `WITH pruned AS (DELETE FROM ${t.rateLimitHits} WHERE key = $1 AND at <= $2),
           counted AS (
             SELECT count(*) AS hits, min(at) AS oldest FROM ${t.rateLimitHits}
             WHERE key = $1 AND at > $2),
           added AS (
             INSERT INTO ${t.rateLimitHits} (key, at)
             SELECT $1, $3 FROM counted WHERE hits < $4)
           SELECT hits, oldest FROM counted`,
          [key, windowStart, now, limit],
        );
        const hits = Number(window?.hits ?? 0);
        const allowed = hits < limit;
        const inWindow = allowed ? hits + 1 : hits;
        // `remaining` goes up when the oldest counted hit leaves; when more are counted than
        // `limit` allows (it was lowered), when enough of the oldest have left for one to fit.
        const skip = Math.max(0, inWindow - limit);
        let leaving: number | undefined;
        if (skip === 0) {
          const oldest = window?.oldest === null ? undefined : fromBigint(window?.oldest);
          leaving = allowed && (oldest === undefined || now < oldest) ? now : oldest;
        } else {
          const [row] = await tx.rows<{ at: unknown }>(
            `SELECT at FROM ${t.rateLimitHits} WHERE key = $1 AND at > $2
             ORDER BY at OFFSET $3 LIMIT 1`,
            [key, windowStart, skip],
          );
          leaving = row === undefined ? undefined : fromBigint(row.at);
        }
        const resetMs = leaving === undefined ? 0 : leaving + windowMs - now;
        return { allowed, limit, remaining: Math.max(0, limit - inWindow), resetMs };
      });
    },
  };
}
