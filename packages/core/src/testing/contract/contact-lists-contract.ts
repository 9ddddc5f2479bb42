import { describe, expect, it } from "vitest";
import { aConsentChange, aContactList, aMembership, aProfile, at } from "./fixtures.js";
import { expectOrganizationListOldestFirst } from "./organization-list.js";
import { insertProfile } from "./profiles-contract.js";
import type { StorageHarness } from "./raw.js";
import { anOrganizationIn, twoOrganizations } from "./seed.js";

/** Consent history, contact lists and memberships. */
export function contactListsContract(harness: () => StorageHarness): void {
  describe("consent", () => {
    it("listForProfile returns the profile's changes oldest first, scoped to the organization", async () => {
      const { storage, raw, orgA, orgB } = await twoOrganizations(harness);
      const profile = await insertProfile(storage, aProfile({ organizationId: orgA }));
      const other = await insertProfile(storage, aProfile({ organizationId: orgA }));
      const base = { organizationId: orgA, profileId: profile.id };
      const first = aConsentChange({ ...base, channel: "sms", newValue: false, changedAt: at(1) });
      const second = aConsentChange({ ...base, oldValue: false, newValue: true, changedAt: at(2) });
      const third = aConsentChange({ ...base, oldValue: true, newValue: false, changedAt: at(3) });
      // Inserted out of order: the answer is ordered by time, not by arrival.
      await storage.consent.insert(second);
      await storage.consent.insert(first);
      await storage.consent.insert(third);
      await storage.consent.insert(aConsentChange({ organizationId: orgA, profileId: other.id }));
      expect(await storage.consent.listForProfile(orgA, profile.id)).toEqual([
        first,
        second,
        third,
      ]);
      expect(await storage.consent.listForProfile(orgB, profile.id)).toEqual([]);
      expect(await raw.consentChanges(profile.id)).toEqual([first, second, third]);
    });
  });

  describe("contactLists", () => {
    it("insert stores a list; get and findByName read it only in its organization", async () => {
      const { storage, orgA, orgB } = await twoOrganizations(harness);
      const list = aContactList({ organizationId: orgA, name: "VIP" });
      expect(await storage.contactLists.insert(list)).toBeUndefined();
      expect(await storage.contactLists.get(orgA, list.id)).toEqual(list);
      expect(await storage.contactLists.get(orgB, list.id)).toBeNull();
      expect(await storage.contactLists.findByName(orgA, "VIP")).toEqual(list);
      expect(await storage.contactLists.findByName(orgB, "VIP")).toBeNull();
      expect(await storage.contactLists.findByName(orgA, "Nope")).toBeNull();
      expect(await storage.contactLists.get(orgA, "lst_0000000000000000000000000")).toBeNull();
    });

    it("insert answers name_taken for a name the organization already uses, writing nothing", async () => {
      const { storage, orgA, orgB } = await twoOrganizations(harness);
      const list = aContactList({ organizationId: orgA, name: "VIP" });
      await storage.contactLists.insert(list);
      const clash = aContactList({ organizationId: orgA, name: "VIP" });
      expect(await storage.contactLists.insert(clash)).toBe("name_taken");
      expect(await storage.contactLists.get(orgA, clash.id)).toBeNull();
      const elsewhere = aContactList({ organizationId: orgB, name: "VIP" });
      expect(await storage.contactLists.insert(elsewhere)).toBeUndefined();
    });

    it("list returns the organization's lists oldest first", () =>
      expectOrganizationListOldestFirst(harness, "contactLists", (organizationId, createdAt) =>
        aContactList({ organizationId, createdAt }),
      ));

    it("addMember adds once; adding again is a no-op answering false", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const profile = await insertProfile(storage, aProfile({ organizationId }));
      const list = aContactList({ organizationId });
      await storage.contactLists.insert(list);
      const membership = aMembership({
        organizationId,
        listId: list.id,
        profileId: profile.id,
        addedAt: at(4),
      });
      expect(await storage.contactLists.addMember(membership)).toBe(true);
      expect(await storage.contactLists.addMember({ ...membership, addedAt: at(8) })).toBe(false);
      expect(await raw.memberships(profile.id)).toEqual([membership]);
    });

    it("removeMember removes the membership; false when there was none or in another organization", async () => {
      const { storage, raw, orgA, orgB } = await twoOrganizations(harness);
      const profile = await insertProfile(storage, aProfile({ organizationId: orgA }));
      const list = aContactList({ organizationId: orgA });
      await storage.contactLists.insert(list);
      const membership = aMembership({
        organizationId: orgA,
        listId: list.id,
        profileId: profile.id,
      });
      await storage.contactLists.addMember(membership);
      expect(await storage.contactLists.removeMember(orgB, list.id, profile.id)).toBe(false);
      expect(await raw.memberships(profile.id)).toEqual([membership]);
      expect(await storage.contactLists.removeMember(orgA, list.id, profile.id)).toBe(true);
      expect(await raw.memberships(profile.id)).toEqual([]);
      expect(await storage.contactLists.removeMember(orgA, list.id, profile.id)).toBe(false);
    });

    it("listMembers gives the active members in the order they were added, in the organization only", async () => {
      const { storage, orgA, orgB } = await twoOrganizations(harness);
      const list = aContactList({ organizationId: orgA });
      await storage.contactLists.insert(list);
      const [p1, p2, p3] = [
        await insertProfile(storage, aProfile({ organizationId: orgA })),
        await insertProfile(storage, aProfile({ organizationId: orgA })),
        await insertProfile(storage, aProfile({ organizationId: orgA })),
      ];
      const add = (profileId: string, seconds: number) =>
        storage.contactLists.addMember(
          aMembership({ organizationId: orgA, listId: list.id, profileId, addedAt: at(seconds) }),
        );
      await add(p3!.id, 1);
      await add(p1!.id, 2);
      await add(p2!.id, 3);
      expect(await storage.contactLists.listMembers(orgA, list.id)).toEqual([
        p3!.id,
        p1!.id,
        p2!.id,
      ]);
      await storage.profiles.softDelete(orgA, p1!.id, at(5));
      expect(await storage.contactLists.listMembers(orgA, list.id)).toEqual([p3!.id, p2!.id]);
      expect(await storage.contactLists.listMembers(orgB, list.id)).toEqual([]);
    });

    it("listsOfProfile gives the profile's lists, oldest membership first, in the organization only", async () => {
      const { storage, orgA, orgB } = await twoOrganizations(harness);
      const profile = await insertProfile(storage, aProfile({ organizationId: orgA }));
      const first = aContactList({ organizationId: orgA, createdAt: at(1) });
      const second = aContactList({ organizationId: orgA, createdAt: at(2) });
      await storage.contactLists.insert(first);
      await storage.contactLists.insert(second);
      const join = (listId: string, seconds: number) =>
        storage.contactLists.addMember(
          aMembership({
            organizationId: orgA,
            listId,
            profileId: profile.id,
            addedAt: at(seconds),
          }),
        );
      await join(second.id, 3);
      await join(first.id, 4);
      expect(await storage.contactLists.listsOfProfile(orgA, profile.id)).toEqual([
        second.id,
        first.id,
      ]);
      expect(await storage.contactLists.listsOfProfile(orgB, profile.id)).toEqual([]);
    });
  });
}
