import { describe, expect, it } from "vitest";
import { repeatUntilDone } from "../deadlines.js";
import { aContactList, aMembership, aProfile, at } from "./fixtures.js";
import { insertProfile } from "./profiles-contract.js";
import type { StorageHarness } from "./raw.js";
import { anOrganizationIn, twoOrganizations } from "./seed.js";

/** Profiles: list, paging and soft delete. */
export function profileListContract(harness: () => StorageHarness): void {
  describe("profiles.list", () => {
    it("lists the organization's active profiles in seq order, at most limit", async () => {
      const { storage, orgA, orgB } = await twoOrganizations(harness);
      const a = await insertProfile(storage, aProfile({ organizationId: orgA }));
      await insertProfile(storage, aProfile({ organizationId: orgB }));
      const b = await insertProfile(storage, aProfile({ organizationId: orgA }));
      const gone = await insertProfile(storage, aProfile({ organizationId: orgA }));
      const c = await insertProfile(storage, aProfile({ organizationId: orgA }));
      await storage.profiles.softDelete(orgA, gone.id, at(5));
      expect(await storage.profiles.list({ organizationId: orgA, limit: 10 })).toEqual([a, b, c]);
      expect(await storage.profiles.list({ organizationId: orgA, limit: 2 })).toEqual([a, b]);
    });

    it("afterSeq returns only later rows, so walking pages visits each profile once", async () => {
      const { storage } = harness();
      const organizationId = await anOrganizationIn(storage);
      const all = [];
      // More than ten rows, so a seq compared as text ("10" < "9") shows up.
      for (let i = 0; i < 12; i++) {
        all.push(await insertProfile(storage, aProfile({ organizationId })));
      }
      expect(
        await storage.profiles.list({ organizationId, afterSeq: all[1]!.seq, limit: 3 }),
      ).toEqual(all.slice(2, 5));
      const seen: typeof all = [];
      let afterSeq: number | undefined;
      // Seven pages hold the twelve; a storage that ignored the cursor would page forever.
      await repeatUntilDone("paging profiles.list with afterSeq", 10, async () => {
        const page = await storage.profiles.list({ organizationId, afterSeq, limit: 2 });
        seen.push(...page);
        afterSeq = page[page.length - 1]?.seq;
        return page.length < 2;
      });
      expect(seen).toEqual(all);
    });

    it("a seq is never handed out again, so a cursor stays valid across deletes", async () => {
      const { storage } = harness();
      const organizationId = await anOrganizationIn(storage);
      const first = await insertProfile(storage, aProfile({ organizationId }));
      const newest = await insertProfile(storage, aProfile({ organizationId }));
      await storage.profiles.softDelete(organizationId, newest.id, at(5));
      const next = await insertProfile(storage, aProfile({ organizationId }));
      expect(next.seq).toBeGreaterThan(newest.seq);
      expect(
        await storage.profiles.list({ organizationId, afterSeq: newest.seq, limit: 10 }),
      ).toEqual([next]);
      expect(
        await storage.profiles.list({ organizationId, afterSeq: first.seq, limit: 10 }),
      ).toEqual([next]);
    });

    it("the phone filter is an exact match", async () => {
      const { storage } = harness();
      const organizationId = await anOrganizationIn(storage);
      const a = await insertProfile(storage, aProfile({ organizationId }));
      await insertProfile(storage, aProfile({ organizationId }));
      expect(
        await storage.profiles.list({ organizationId, phoneNumber: a.phoneNumber, limit: 10 }),
      ).toEqual([a]);
      expect(
        await storage.profiles.list({ organizationId, phoneNumber: "+306999999999", limit: 10 }),
      ).toEqual([]);
    });

    it("the email filter is a case-insensitive exact match and pages with afterSeq", async () => {
      const { storage } = harness();
      const organizationId = await anOrganizationIn(storage);
      const a = await insertProfile(
        storage,
        aProfile({ organizationId, email: "Sam@Example.com" }),
      );
      await insertProfile(storage, aProfile({ organizationId, email: "sam@example.co" }));
      const b = await insertProfile(
        storage,
        aProfile({ organizationId, email: "SAM@example.com" }),
      );
      const query = { organizationId, email: "sam@EXAMPLE.com", limit: 10 };
      expect(await storage.profiles.list(query)).toEqual([a, b]);
      expect(await storage.profiles.list({ ...query, afterSeq: a.seq })).toEqual([b]);
    });

    it("an empty organization lists nothing", async () => {
      const { storage } = harness();
      const organizationId = await anOrganizationIn(storage);
      const other = await anOrganizationIn(storage);
      await insertProfile(storage, aProfile({ organizationId: other }));
      expect(await storage.profiles.list({ organizationId, limit: 100 })).toEqual([]);
    });
  });

  describe("profiles.softDelete", () => {
    it("marks the profile inactive with deletedAt and updatedAt, and hides it from reads", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const profile = await insertProfile(
        storage,
        aProfile({ organizationId, email: "d@example.com" }),
      );
      expect(await storage.profiles.softDelete(organizationId, profile.id, at(9))).toBe(true);
      expect(await raw.profile(profile.id)).toEqual({
        ...profile,
        status: "inactive",
        deletedAt: at(9),
        updatedAt: at(9),
      });
      expect(await storage.profiles.get(organizationId, profile.id)).toBeNull();
      expect(await storage.profiles.findByEmail(organizationId, "d@example.com", 5)).toEqual([]);
      expect(await storage.profiles.list({ organizationId, limit: 5 })).toEqual([]);
    });

    it("removes every contact list membership of the profile, and only its", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const profile = await insertProfile(storage, aProfile({ organizationId }));
      const kept = await insertProfile(storage, aProfile({ organizationId }));
      const lists = [aContactList({ organizationId }), aContactList({ organizationId })];
      for (const list of lists) {
        await storage.contactLists.insert(list);
        await storage.contactLists.addMember(
          aMembership({ organizationId, listId: list.id, profileId: profile.id }),
        );
        await storage.contactLists.addMember(
          aMembership({ organizationId, listId: list.id, profileId: kept.id }),
        );
      }
      await storage.profiles.softDelete(organizationId, profile.id, at(9));
      expect(await raw.memberships(profile.id)).toEqual([]);
      expect(await raw.memberships(kept.id)).toHaveLength(2);
      expect(await storage.contactLists.listsOfProfile(organizationId, profile.id)).toEqual([]);
    });

    it("frees the phone number for a new profile", async () => {
      const { storage } = harness();
      const organizationId = await anOrganizationIn(storage);
      const profile = await insertProfile(storage, aProfile({ organizationId }));
      await storage.profiles.softDelete(organizationId, profile.id, at(9));
      const again = await insertProfile(
        storage,
        aProfile({ organizationId, phoneNumber: profile.phoneNumber }),
      );
      expect(await storage.profiles.findByPhone(organizationId, profile.phoneNumber)).toEqual(
        again,
      );
    });

    it("is false for another organization's, unknown or already deleted profile, writing nothing", async () => {
      const { storage, raw, orgA, orgB } = await twoOrganizations(harness);
      const profile = await insertProfile(storage, aProfile({ organizationId: orgA }));
      expect(await storage.profiles.softDelete(orgB, profile.id, at(9))).toBe(false);
      expect(await raw.profile(profile.id)).toEqual(profile);
      expect(await storage.profiles.softDelete(orgA, "prf_0000000000000000000000000", at(9))).toBe(
        false,
      );
      await storage.profiles.softDelete(orgA, profile.id, at(9));
      expect(await storage.profiles.softDelete(orgA, profile.id, at(12))).toBe(false);
      expect((await raw.profile(profile.id))?.deletedAt).toBe(at(9));
    });
  });
}
