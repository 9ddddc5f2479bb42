import { describe, expect, it } from "vitest";
import type { OrganizationSettingsRecord } from "../../ports.js";
import { anOrganization, at, T0 } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";

const HOUR = 3_600_000;
const key = (limit = 100) => ({ key: "send:key_a", windowMs: 60_000, limit });
const number = (perHour: number) => ({
  key: "dst:n:x",
  windows: [{ windowMs: HOUR, limit: perHour }],
});

/** Organization settings and a send's hit on its key and destination counters. */
export function sendHitsContract(harness: () => StorageHarness): void {
  describe("settings", () => {
    it("get is null until put; put replaces", async () => {
      const { storage } = harness();
      const org = anOrganization();
      await storage.organizations.insert(org);
      expect(await storage.settings.get(org.id)).toBeNull();
      const record: OrganizationSettingsRecord = {
        organizationId: org.id,
        allowedCountries: ["GB", "JE"],
        blockedNumberTypes: ["PREMIUM_RATE"],
        destinationLimits: { perHour: 10, perDay: null },
        prefixLimits: { perHour: 100 },
        countryDailyLimits: { GB: 500 },
        updatedAt: at(1),
      };
      await storage.settings.put(record);
      expect(await storage.settings.get(org.id)).toEqual(record);
      const changed = {
        ...record,
        allowedCountries: null,
        countryDailyLimits: {},
        updatedAt: at(2),
      };
      await storage.settings.put(changed);
      expect(await storage.settings.get(org.id)).toEqual(changed);
    });
  });

  describe("rateLimits.hitSend", () => {
    it("counts the key and the destination together, and a full destination counts neither", async () => {
      const { storage } = harness();
      for (let i = 0; i < 2; i++) {
        const ok = await storage.rateLimits.hitSend({
          now: T0 + i,
          key: key(),
          destinations: [number(2)],
        });
        expect(ok.refusedBy).toBeNull();
      }
      const refused = await storage.rateLimits.hitSend({
        now: T0 + 10,
        key: key(),
        destinations: [number(2)],
      });
      // Room again once the first hit (at T0) leaves the hour.
      expect(refused).toEqual({ refusedBy: 0, resetMs: HOUR - 10 });
      // The refusal counted nothing on the key: two hits of 100.
      expect(await storage.rateLimits.hit("send:key_a", T0 + 20, 60_000, 100)).toMatchObject({
        remaining: 97,
      });
      expect(
        (
          await storage.rateLimits.hitSend({
            now: T0 + HOUR,
            key: key(),
            destinations: [number(2)],
          })
        ).refusedBy,
      ).toBeNull();
    });

    it("a send the key refuses counts no destination", async () => {
      const { storage } = harness();
      const first = await storage.rateLimits.hitSend({
        now: T0,
        key: key(1),
        destinations: [number(5)],
      });
      expect(first).toMatchObject({ refusedBy: null, key: { allowed: true } });
      const second = await storage.rateLimits.hitSend({
        now: T0 + 1,
        key: key(1),
        destinations: [number(5)],
      });
      expect(second).toMatchObject({ refusedBy: null, key: { allowed: false } });
      // Only the first was counted on the number: four more fit.
      for (let i = 0; i < 4; i++) {
        const more = await storage.rateLimits.hitSend({
          now: T0 + 2 + i,
          key: { key: `send:other_${i}`, windowMs: 60_000, limit: 1 },
          destinations: [number(5)],
        });
        expect(more.refusedBy).toBeNull();
      }
      const full = await storage.rateLimits.hitSend({
        now: T0 + 10,
        key: { key: "send:other_x", windowMs: 60_000, limit: 1 },
        destinations: [number(5)],
      });
      expect(full.refusedBy).toBe(0);
    });

    it("each window of a key counts its own hits, and hits older than every window count in none", async () => {
      const { storage } = harness();
      const DAY = 24 * HOUR;
      const hourAndDay = {
        key: "dst:n:y",
        windows: [
          { windowMs: HOUR, limit: 2 },
          { windowMs: DAY, limit: 3 },
        ],
      };
      const send = (now: number, i: number) =>
        storage.rateLimits.hitSend({
          now,
          key: { key: `send:k_${i}`, windowMs: 60_000, limit: 100 },
          destinations: [hourAndDay],
        });
      expect((await send(T0, 0)).refusedBy).toBeNull();
      expect((await send(T0 + 1, 1)).refusedBy).toBeNull();
      // The hour is full: room once the first hit leaves it.
      expect(await send(T0 + 2, 2)).toEqual({ refusedBy: 0, resetMs: HOUR - 2 });
      // An hour on, the hour has room and the day takes its third.
      expect((await send(T0 + HOUR, 3)).refusedBy).toBeNull();
      // The day is full (three hits), the hour is not (one): room once T0's hit leaves the day.
      expect(await send(T0 + HOUR + 5, 4)).toEqual({ refusedBy: 0, resetMs: DAY - HOUR - 5 });
      // A day after the first two, only the third is left in any window: two more fit.
      expect((await send(T0 + DAY + 1, 5)).refusedBy).toBeNull();
      expect((await send(T0 + DAY + 2, 6)).refusedBy).toBeNull();
      expect((await send(T0 + DAY + 3, 7)).refusedBy).toBe(0);
    });

    it("a total ends at its time and starts again from one", async () => {
      const { storage } = harness();
      const country = (until: number) => ({ key: "dst:c:org:GB", total: { limit: 1, until } });
      expect(
        (
          await storage.rateLimits.hitSend({
            now: T0,
            key: key(),
            destinations: [country(T0 + 1000)],
          })
        ).refusedBy,
      ).toBeNull();
      expect(
        await storage.rateLimits.hitSend({
          now: T0 + 400,
          key: key(),
          destinations: [country(T0 + 1000)],
        }),
      ).toEqual({ refusedBy: 0, resetMs: 600 });
      expect(
        (
          await storage.rateLimits.hitSend({
            now: T0 + 1000,
            key: key(),
            destinations: [country(T0 + 2000)],
          })
        ).refusedBy,
      ).toBeNull();
    });

    it("20 concurrent sends to one number with a limit of 5 allow exactly 5", async () => {
      const { storage } = harness();
      const decisions = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          storage.rateLimits.hitSend({ now: T0 + i, key: key(), destinations: [number(5)] }),
        ),
      );
      expect(decisions.filter((d) => d.refusedBy === null)).toHaveLength(5);
    });
  });
}
