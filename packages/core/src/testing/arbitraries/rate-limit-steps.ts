import fc from "fast-check";
import type { Storage } from "../../ports.js";

/** A rate-limit hit some time after the last, or a retention sweep of old hits. */
export type RateLimitStep =
  | { kind: "hit"; key: string; advanceMs: number; windowMs: number; limit: number }
  | { kind: "sweep"; backMs: number; limit: number };

/**
 * Hits on three keys with short windows and small limits, so windows fill, empty and get
 * pruned, and now and then a retention sweep: what a kept count of hits per key must follow.
 */
export const rateLimitStepArbitrary: fc.Arbitrary<RateLimitStep> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("hit" as const),
      key: fc.constantFrom("send:a", "send:b", "send:c"),
      advanceMs: fc.integer({ min: 0, max: 400 }),
      windowMs: fc.constantFrom(100, 1000),
      limit: fc.integer({ min: 1, max: 6 }),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("sweep" as const),
      backMs: fc.integer({ min: 0, max: 2000 }),
      limit: fc.integer({ min: 1, max: 10 }),
    }),
    weight: 1,
  },
);

/** Applies `step` to `storage` at the clock `now` holds (a hit moves it on); the new now. */
export async function applyRateLimitStep(
  storage: Pick<Storage, "rateLimits" | "retention">,
  step: RateLimitStep,
  now: number,
): Promise<number> {
  if (step.kind === "sweep") {
    await storage.retention.deleteRateLimitHitsBefore(now - step.backMs, step.limit);
    return now;
  }
  const at = now + step.advanceMs;
  await storage.rateLimits.hit(step.key, at, step.windowMs, step.limit);
  return at;
}
