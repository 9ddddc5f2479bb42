import type { RateLimitRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";

/** A sliding-log rate limiter in memory. */
export function memoryRateLimits(scope: MemoryScope): RateLimitRepository {
  return {
    hit: (key, now, windowMs, limit) =>
      scope.write("rateLimits.hit", (s) => {
        // Hits at or before the window's open edge can never count again for a later `now`.
        // Hits stamped after `now` count: a caller whose clock read later was served first.
        const counted = (s.rateLimitHits.get(key) ?? []).filter((t) => t > now - windowMs);
        const allowed = counted.length < limit;
        if (allowed) {
          counted.push(now);
          counted.sort((a, b) => a - b);
        }
        s.rateLimitHits.set(key, counted);
        // `remaining` goes up when the oldest counted hit leaves; when more are counted than
        // `limit` allows (it was lowered), when enough of the oldest have left for one to fit.
        const leaving = counted[Math.max(0, counted.length - limit)];
        const resetMs = leaving === undefined ? 0 : leaving + windowMs - now;
        return { allowed, limit, remaining: Math.max(0, limit - counted.length), resetMs };
      }),
  };
}
