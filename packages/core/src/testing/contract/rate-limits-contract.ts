import { describe, expect, it } from "vitest";
import { T0 } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";

const WINDOW = 60_000;

/** The sliding-log rate limit. */
export function rateLimitsContract(harness: () => StorageHarness): void {
  describe("rateLimits.hit", () => {
    it("allows exactly limit hits in the window, then refuses, with remaining counting down", async () => {
      const { storage } = harness();
      const decisions = [];
      for (let i = 0; i < 4; i++)
        decisions.push(await storage.rateLimits.hit("key_a", T0 + i * 1000, WINDOW, 3));
      // resetMs: until the oldest counted hit (at T0) leaves, whether there is room or not.
      expect(decisions).toEqual([
        { allowed: true, limit: 3, remaining: 2, resetMs: WINDOW },
        { allowed: true, limit: 3, remaining: 1, resetMs: WINDOW - 1000 },
        { allowed: true, limit: 3, remaining: 0, resetMs: WINDOW - 2000 },
        { allowed: false, limit: 3, remaining: 0, resetMs: WINDOW - 3000 },
      ]);
    });

    it("resetMs follows the oldest counted hit as older ones leave, and is 0 only when none is counted", async () => {
      const { storage } = harness();
      expect(await storage.rateLimits.hit("key_a", T0, WINDOW, 0)).toEqual({
        allowed: false,
        limit: 0,
        remaining: 0,
        resetMs: 0,
      });
      await storage.rateLimits.hit("key_a", T0, WINDOW, 5);
      await storage.rateLimits.hit("key_a", T0 + 20_000, WINDOW, 5);
      // The hit at T0 has left; the oldest counted is now the one at T0 + 20 s.
      expect(await storage.rateLimits.hit("key_a", T0 + WINDOW + 500, WINDOW, 5)).toEqual({
        allowed: true,
        limit: 5,
        remaining: 3,
        resetMs: 20_000 - 500,
      });
    });

    it("with more hits counted than a lowered limit, resetMs is when enough have left for one more", async () => {
      const { storage } = harness();
      for (let i = 0; i < 3; i++) await storage.rateLimits.hit("key_a", T0 + i * 1000, WINDOW, 5);
      // Three counted, limit now 2: the two oldest must leave; the second leaves at T0 + 1 s.
      expect(await storage.rateLimits.hit("key_a", T0 + 5000, WINDOW, 2)).toEqual({
        allowed: false,
        limit: 2,
        remaining: 0,
        resetMs: WINDOW + 1000 - 5000,
      });
    });

    it("a hit leaves the window exactly windowMs after it was made", async () => {
      const { storage } = harness();
      await storage.rateLimits.hit("key_a", T0, WINDOW, 2);
      await storage.rateLimits.hit("key_a", T0 + 10_000, WINDOW, 2);
      expect((await storage.rateLimits.hit("key_a", T0 + WINDOW - 1, WINDOW, 2)).allowed).toBe(
        false,
      );
      // The window is (now - windowMs, now]: at T0 + windowMs the first hit no longer counts.
      expect(await storage.rateLimits.hit("key_a", T0 + WINDOW, WINDOW, 2)).toEqual({
        allowed: true,
        limit: 2,
        remaining: 0,
        resetMs: 10_000,
      });
      expect((await storage.rateLimits.hit("key_a", T0 + WINDOW + 9_999, WINDOW, 2)).allowed).toBe(
        false,
      );
      expect((await storage.rateLimits.hit("key_a", T0 + WINDOW + 10_000, WINDOW, 2)).allowed).toBe(
        true,
      );
    });

    it("refused hits are not recorded", async () => {
      const { storage } = harness();
      await storage.rateLimits.hit("key_a", T0, WINDOW, 1);
      for (let i = 1; i <= 5; i++)
        await storage.rateLimits.hit("key_a", T0 + i * 10_000, WINDOW, 1);
      expect((await storage.rateLimits.hit("key_a", T0 + WINDOW, WINDOW, 1)).allowed).toBe(true);
    });

    it("a hit stamped later than now still counts (another process read its clock later but came first)", async () => {
      const { storage } = harness();
      expect((await storage.rateLimits.hit("key_a", T0 + 5, WINDOW, 1)).allowed).toBe(true);
      expect(await storage.rateLimits.hit("key_a", T0, WINDOW, 1)).toEqual({
        allowed: false,
        limit: 1,
        remaining: 0,
        resetMs: WINDOW + 5,
      });
    });

    it("keys are counted apart", async () => {
      const { storage } = harness();
      expect((await storage.rateLimits.hit("key_a", T0, WINDOW, 1)).allowed).toBe(true);
      expect((await storage.rateLimits.hit("key_b", T0, WINDOW, 1)).allowed).toBe(true);
      expect((await storage.rateLimits.hit("key_a", T0 + 1, WINDOW, 1)).allowed).toBe(false);
    });

    it("50 concurrent hits on a limit of 10 allow exactly 10", async () => {
      const { storage } = harness();
      const decisions = await Promise.all(
        Array.from({ length: 50 }, () => storage.rateLimits.hit("key_a", T0, WINDOW, 10)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      expect(decisions.every((d) => d.limit === 10 && d.remaining >= 0)).toBe(true);
    });
  });
}
