import { describe, expect, it } from "vitest";
import { aPhone, aProfile } from "./fixtures.js";
import { insertProfile } from "./profiles-contract.js";
import type { StorageHarness } from "./raw.js";
import { anOrganizationIn } from "./seed.js";

/** Phone uniqueness under concurrent writers. */
export function concurrencyContract(harness: () => StorageHarness): void {
  describe("phone uniqueness under concurrency", () => {
    it("20 concurrent inserts of the same phone: exactly one is stored", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const phoneNumber = aPhone();
      const candidates = Array.from({ length: 20 }, () =>
        aProfile({ organizationId, phoneNumber }),
      );
      const results = await Promise.all(candidates.map((p) => storage.profiles.insert(p)));
      expect(results.filter((r) => r !== "phone_number_taken")).toHaveLength(1);
      const stored = await Promise.all(candidates.map((p) => raw.profile(p.id)));
      expect(stored.filter((p) => p !== null)).toHaveLength(1);
    });

    it("20 concurrent transactions inserting the same phone: exactly one commits it", async () => {
      const { storage } = harness();
      const organizationId = await anOrganizationIn(storage);
      const phoneNumber = aPhone();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          storage.transaction((tx) =>
            tx.profiles.insert(aProfile({ organizationId, phoneNumber })),
          ),
        ),
      );
      expect(results.filter((r) => r !== "phone_number_taken")).toHaveLength(1);
      expect(await storage.profiles.list({ organizationId, phoneNumber, limit: 100 })).toHaveLength(
        1,
      );
    });

    it("20 profiles concurrently moving to the same phone: exactly one gets it", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const phoneNumber = aPhone();
      const profiles = [];
      for (let i = 0; i < 20; i++)
        profiles.push(await insertProfile(storage, aProfile({ organizationId })));
      const results = await Promise.all(
        profiles.map((p) => storage.profiles.update({ ...p, phoneNumber })),
      );
      expect(results.filter((r) => r === true)).toHaveLength(1);
      const holders = (await Promise.all(profiles.map((p) => raw.profile(p.id)))).filter(
        (p) => p?.phoneNumber === phoneNumber,
      );
      expect(holders).toHaveLength(1);
    });

    it("concurrent inserts of different phones are all stored with distinct seqs", async () => {
      const { storage } = harness();
      const organizationId = await anOrganizationIn(storage);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => insertProfile(storage, aProfile({ organizationId }))),
      );
      expect(new Set(results.map((p) => p.seq)).size).toBe(20);
      expect(await storage.profiles.list({ organizationId, limit: 100 })).toHaveLength(20);
    });
  });
}
