import type { RateLimitRepository } from "@tidings/core";
import { fromBigint } from "../columns.js";
import type { Sql } from "../sql.js";

/**
 * A sliding-log rate limiter shared by every process: each hit is a row, and a transaction-level
 * advisory lock on the key makes count-then-insert atomic across connections.
 */
export function rateLimitRepository(sql: Sql): RateLimitRepository {
  const t = sql.tables;
  return {
    hit: (key, now, windowMs, limit) =>
      sql.atomic(async (tx) => {
        await tx.rows("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [
          `tidings.rate:${t.schema}`,
          key,
        ]);
        // Taken after the lock, so this statement sees every hit committed before it. Hits at
        // or before the window's open edge can never count again for a later `now`. Hits after
        // `now` do count: another process read its clock later but got the lock first.
        const rows = await tx.rows<{ at: unknown }>(
          `WITH pruned AS (DELETE FROM ${t.rateLimitHits} WHERE key = $1 AND at <= $2)
           SELECT at FROM ${t.rateLimitHits} WHERE key = $1 AND at > $2
           ORDER BY at`,
          [key, now - windowMs],
        );
        const counted = rows.map((row) => fromBigint(row.at));
        const allowed = counted.length < limit;
        if (allowed) {
          await tx.rows(`INSERT INTO ${t.rateLimitHits} (key, at) VALUES ($1, $2)`, [key, now]);
          counted.push(now);
          counted.sort((a, b) => a - b);
        }
        // `remaining` goes up when the oldest counted hit leaves; when more are counted than
        // `limit` allows (it was lowered), when enough of the oldest have left for one to fit.
        const leaving = counted[Math.max(0, counted.length - limit)];
        const resetMs = leaving === undefined ? 0 : leaving + windowMs - now;
        return { allowed, limit, remaining: Math.max(0, limit - counted.length), resetMs };
      }),
  };
}
