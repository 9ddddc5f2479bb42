import type { RateLimitDecision, RateLimitRepository } from "../../ports.js";
import { destinationRefusal } from "../../rate-limit/destination-counters.js";
import type { MemoryScope } from "./scope.js";
import type { MemoryState } from "./state.js";

/** One hit on `key` in `s`, counted when it fits. */
function hitKey(
  s: MemoryState,
  key: string,
  now: number,
  windowMs: number,
  limit: number,
): RateLimitDecision {
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
}

/** A sliding-log rate limiter in memory, with the destination counters of `hitSend`. */
export function memoryRateLimits(scope: MemoryScope): RateLimitRepository {
  return {
    hit: (key, now, windowMs, limit) =>
      scope.write("rateLimits.hit", (s) => hitKey(s, key, now, windowMs, limit)),
    hitSend: ({ now, key, destinations }) =>
      scope.write("rateLimits.hitSend", (s) => {
        for (const [index, counter] of destinations.entries()) {
          const resetMs = destinationRefusal(
            counter,
            now,
            s.destinationHits.get(counter.key) ?? [],
            s.destinationTotals.get(counter.key),
          );
          if (resetMs !== null) return { refusedBy: index, resetMs };
        }
        const decision = hitKey(s, key.key, now, key.windowMs, key.limit);
        if (decision.allowed) {
          for (const counter of destinations) {
            if ("windows" in counter) {
              const longest = Math.max(...counter.windows.map((w) => w.windowMs));
              const kept = (s.destinationHits.get(counter.key) ?? []).filter(
                (t) => t > now - longest,
              );
              kept.push(now);
              kept.sort((a, b) => a - b);
              s.destinationHits.set(counter.key, kept);
            } else {
              const total = s.destinationTotals.get(counter.key);
              s.destinationTotals.set(counter.key, {
                n: total !== undefined && total.until > now ? total.n + 1 : 1,
                until: counter.total.until,
              });
            }
          }
        }
        return { refusedBy: null, key: decision };
      }),
  };
}
