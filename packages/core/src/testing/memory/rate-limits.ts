import type { RateLimitRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";

/** A sliding-log rate limiter in memory. */
export function memoryRateLimits(scope: MemoryScope): RateLimitRepository {
  return {
    hit: (key, now, windowMs, limit) =>
      scope.write("rateLimits.hit", (s) => {
        // Hits at or before the window's open edge can never count again for a later `now`.
        const inWindow = (s.rateLimitHits.get(key) ?? []).filter((t) => t > now - windowMs);
        const counted = inWindow.filter((t) => t <= now);
        const allowed = counted.length < limit;
        if (allowed) {
          inWindow.push(now);
          inWindow.sort((a, b) => a - b);
          counted.push(now);
          counted.sort((a, b) => a - b);
        }
        s.rateLimitHits.set(key, inWindow);
        const full = counted.length >= limit;
        // Room opens when enough of the oldest hits have left for one more to fit.
        const leaving = counted[counted.length - limit];
        const resetMs = full && leaving !== undefined ? leaving + windowMs - now : 0;
        return { allowed, limit, remaining: Math.max(0, limit - counted.length), resetMs };
      }),
  };
}
