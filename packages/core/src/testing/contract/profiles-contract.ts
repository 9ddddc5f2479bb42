import { describe, expect, it } from "vitest";
import type { ProfileRecord, Repositories } from "../../ports.js";
import { aPhone, aProfile, at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { anOrganizationIn, twoOrganizations } from "./seed.js";

/** Inserts a profile that must get stored. */
export async function insertProfile(
  repos: Repositories,
  profile: Parameters<Repositories["profiles"]["insert"]>[0],
): Promise<ProfileRecord> {
  const stored = await repos.profiles.insert(profile);
  if (stored === "phone_number_taken") throw new Error("expected the profile to be stored");
  return stored;
}

/** Profiles: insert, reads and update. */
export function profilesContract(harness: () => StorageHarness): void {
  describe("profiles", () => {
    it("insert stores the profile as given and assigns an increasing seq", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const first = aProfile({
        organizationId,
        email: "a@example.com",
        firstName: "Zoë 🎉",
        lastName: 'O\'Brien "Jr"',
        attributes: { vip: true, visits: 12, score: 0.5, note: "ünïcode ✓" },
        source: "import",
        viberMarketingConsent: true,
        createdAt: at(0.123),
        updatedAt: at(0.456),
      });
      const second = aProfile({ organizationId });
      const a = await insertProfile(storage, first);
      const b = await insertProfile(storage, second);
      expect(a).toEqual({ ...first, seq: a.seq });
      expect(b.seq).toBeGreaterThan(a.seq);
      expect(await raw.profile(first.id)).toEqual(a);
    });

    it("insert refuses a phone held by an active profile of the organization and writes nothing", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const holder = await insertProfile(storage, aProfile({ organizationId }));
      const clash = aProfile({ organizationId, phoneNumber: holder.phoneNumber });
      expect(await storage.profiles.insert(clash)).toBe("phone_number_taken");
      expect(await raw.profile(clash.id)).toBeNull();
    });

    it("the same phone may be held once in each organization", async () => {
      const { storage, orgA, orgB } = await twoOrganizations(harness);
      const phoneNumber = aPhone();
      await insertProfile(storage, aProfile({ organizationId: orgA, phoneNumber }));
      const other = await insertProfile(storage, aProfile({ organizationId: orgB, phoneNumber }));
      expect(await storage.profiles.findByPhone(orgB, phoneNumber)).toEqual(other);
    });

    it("get returns the active profile and null for unknown or another organization's id", async () => {
      const { storage, orgA, orgB } = await twoOrganizations(harness);
      const profile = await insertProfile(storage, aProfile({ organizationId: orgA }));
      expect(await storage.profiles.get(orgA, profile.id)).toEqual(profile);
      expect(await storage.profiles.get(orgB, profile.id)).toBeNull();
      expect(await storage.profiles.get(orgA, "prf_0000000000000000000000000")).toBeNull();
    });

    it("findByPhone finds only the organization's active holder of the exact number", async () => {
      const { storage, orgA, orgB } = await twoOrganizations(harness);
      const profile = await insertProfile(storage, aProfile({ organizationId: orgA }));
      expect(await storage.profiles.findByPhone(orgA, profile.phoneNumber)).toEqual(profile);
      expect(await storage.profiles.findByPhone(orgB, profile.phoneNumber)).toBeNull();
      expect(await storage.profiles.findByPhone(orgA, aPhone())).toBeNull();
      await storage.profiles.softDelete(orgA, profile.id, at(5));
      expect(await storage.profiles.findByPhone(orgA, profile.phoneNumber)).toBeNull();
    });

    it("findByEmail matches case-insensitively, oldest first, at most limit, active only", async () => {
      const { storage, orgA, orgB } = await twoOrganizations(harness);
      const withEmail = (email: string, organizationId = orgA) =>
        insertProfile(storage, aProfile({ organizationId, email }));
      const a = await withEmail("Jo@Example.com");
      const b = await withEmail("jo@example.COM");
      const c = await withEmail("JO@EXAMPLE.COM");
      const gone = await withEmail("jo@example.com");
      await withEmail("other@example.com");
      await withEmail("jo@example.com", orgB);
      await storage.profiles.softDelete(orgA, gone.id, at(5));
      expect(await storage.profiles.findByEmail(orgA, "jo@example.com", 10)).toEqual([a, b, c]);
      expect(await storage.profiles.findByEmail(orgA, "JO@example.com", 2)).toEqual([a, b]);
      expect(await storage.profiles.findByEmail(orgA, "nobody@example.com", 10)).toEqual([]);
    });

    it("update replaces every mutable field and keeps id, seq and createdAt", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const stored = await insertProfile(storage, aProfile({ organizationId }));
      const changed: ProfileRecord = {
        ...stored,
        phoneNumber: aPhone(),
        email: "new@example.com",
        firstName: null,
        lastName: "Byron",
        viberMarketingConsent: true,
        smsMarketingConsent: true,
        attributes: { plan: "gold", visits: 3 },
        updatedAt: at(10),
      };
      expect(await storage.profiles.update(changed)).toBe(true);
      expect(await raw.profile(stored.id)).toEqual(changed);
      expect(await storage.profiles.get(organizationId, stored.id)).toEqual(changed);
    });

    it("update refuses a phone held by another active profile and writes nothing", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const holder = await insertProfile(storage, aProfile({ organizationId }));
      const other = await insertProfile(storage, aProfile({ organizationId }));
      const attempt = { ...other, phoneNumber: holder.phoneNumber, email: "x@example.com" };
      expect(await storage.profiles.update(attempt)).toBe("phone_number_taken");
      expect(await raw.profile(other.id)).toEqual(other);
    });

    it("update may keep the profile's own phone", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const stored = await insertProfile(storage, aProfile({ organizationId }));
      const changed = { ...stored, firstName: "Grace", updatedAt: at(3) };
      expect(await storage.profiles.update(changed)).toBe(true);
      expect(await raw.profile(stored.id)).toEqual(changed);
    });

    it("update is false for another organization's, unknown or inactive profile and writes nothing", async () => {
      const { storage, raw, orgA, orgB } = await twoOrganizations(harness);
      const stored = await insertProfile(storage, aProfile({ organizationId: orgA }));
      const foreign = { ...stored, organizationId: orgB, firstName: "Mallory" };
      expect(await storage.profiles.update(foreign)).toBe(false);
      expect(await raw.profile(stored.id)).toEqual(stored);
      const unknown = { ...stored, id: "prf_0000000000000000000000000" };
      expect(await storage.profiles.update(unknown)).toBe(false);
      expect(await raw.profile(unknown.id)).toBeNull();
      await storage.profiles.softDelete(orgA, stored.id, at(5));
      const deleted = await raw.profile(stored.id);
      expect(await storage.profiles.update({ ...stored, firstName: "Zombie" })).toBe(false);
      expect(await raw.profile(stored.id)).toEqual(deleted);
    });

    it("stored records are copies: mutating what was passed or returned changes nothing", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const input = aProfile({ organizationId, attributes: { tier: "a" } });
      const stored = await insertProfile(storage, input);
      input.attributes.tier = "mutated";
      stored.attributes.tier = "mutated";
      const read = await storage.profiles.get(organizationId, input.id);
      if (read !== null) read.attributes.tier = "mutated";
      expect((await raw.profile(input.id))?.attributes).toEqual({ tier: "a" });
    });
  });
}
