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
        const full = counted.length >= limit;
        // Room opens when enough of the oldest hits have left for one more to fit.
        const leaving = counted[counted.length - limit];
        const resetMs = full && leaving !== undefined ? leaving + windowMs - now : 0;
        return { allowed, limit, remaining: Math.max(0, limit - counted.length), resetMs };
      }),
  };
}
