import { describe, expect, it } from "vitest";
import type { CampaignRecord } from "../../ports.js";
import { aCampaign, anApiKey, anOrganization, at } from "./fixtures.js";
import { expectOrganizationListOldestFirst } from "./organization-list.js";
import type { StorageHarness } from "./raw.js";
import { anOrganizationIn, twoOrganizations } from "./seed.js";

/** Organizations, campaigns and API keys. */
export function accountsContract(harness: () => StorageHarness): void {
  describe("organizations", () => {
    it("insert stores an organization; get reads it and is null when unknown", async () => {
      const { storage } = harness();
      const org = anOrganization({ name: "Globex", createdAt: at(3) });
      await storage.organizations.insert(org);
      expect(await storage.organizations.get(org.id)).toEqual(org);
      expect(await storage.organizations.get("org_0000000000000000000000000")).toBeNull();
    });

    it("list answers every organization, oldest first, ties by id", async () => {
      const { storage } = harness();
      expect(await storage.organizations.list()).toEqual([]);
      const late = anOrganization({ name: "Late", createdAt: at(5) });
      const early = anOrganization({ name: "Early", createdAt: at(1) });
      const tiedA = anOrganization({ id: "org_0000000000000000000000001", createdAt: at(3) });
      const tiedB = anOrganization({ id: "org_0000000000000000000000002", createdAt: at(3) });
      for (const org of [late, tiedB, early, tiedA]) await storage.organizations.insert(org);
      expect(await storage.organizations.list()).toEqual([early, tiedA, tiedB, late]);
    });
  });

  describe("campaigns", () => {
    it("insert stores a campaign; get reads it only in its organization", async () => {
      const { storage, raw, orgA, orgB } = await twoOrganizations(harness);
      const campaign = aCampaign({
        organizationId: orgA,
        channel: "viber",
        smsFallback: true,
        smsSender: "AcmeSMS",
      });
      await storage.campaigns.insert(campaign);
      expect(await raw.campaign(campaign.id)).toEqual(campaign);
      expect(await storage.campaigns.get(orgA, campaign.id)).toEqual(campaign);
      expect(await storage.campaigns.get(orgB, campaign.id)).toBeNull();
      expect(await storage.campaigns.get(orgA, "cmp_0000000000000000000000000")).toBeNull();
    });

    it("list returns the organization's campaigns oldest first", () =>
      expectOrganizationListOldestFirst(harness, "campaigns", (organizationId, createdAt) =>
        aCampaign({ organizationId, createdAt }),
      ));

    it("update replaces the mutable fields; false (nothing written) when unknown or foreign", async () => {
      const { storage, raw, orgA, orgB } = await twoOrganizations(harness);
      const campaign = aCampaign({ organizationId: orgA });
      await storage.campaigns.insert(campaign);
      const changed: CampaignRecord = {
        ...campaign,
        name: "Promo",
        channel: "viber",
        smsFallback: true,
        category: "promotional",
        sender: "AcmeShop",
        template: "Sale {{pct}}",
        ttlSeconds: 3600,
        status: "inactive",
        updatedAt: at(7),
      };
      expect(await storage.campaigns.update(changed)).toBe(true);
      expect(await raw.campaign(campaign.id)).toEqual(changed);
      expect(await storage.campaigns.update({ ...changed, organizationId: orgB, name: "X" })).toBe(
        false,
      );
      const unknown = { ...changed, id: "cmp_0000000000000000000000000" };
      expect(await storage.campaigns.update(unknown)).toBe(false);
      expect(await raw.campaign(campaign.id)).toEqual(changed);
      expect(await raw.campaign(unknown.id)).toBeNull();
    });
  });

  describe("apiKeys", () => {
    it("insert stores a key; get reads it by id alone and is null when unknown", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const key = anApiKey({ organizationId, scopes: ["profiles:read"], expiresAt: at(1000) });
      await storage.apiKeys.insert(key);
      expect(await raw.apiKey(key.id)).toEqual(key);
      expect(await storage.apiKeys.get(key.id)).toEqual(key);
      expect(await storage.apiKeys.get("key_0000000000000000000000000")).toBeNull();
    });

    it("list returns the organization's keys oldest first, revoked ones included", () =>
      expectOrganizationListOldestFirst(harness, "apiKeys", (organizationId, createdAt) =>
        anApiKey({ organizationId, createdAt, revokedAt: at(3) }),
      ));

    it("revoke sets revokedAt once; false when unknown or already revoked", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const key = anApiKey({ organizationId });
      await storage.apiKeys.insert(key);
      expect(await storage.apiKeys.revoke(key.id, at(5))).toBe(true);
      expect(await raw.apiKey(key.id)).toEqual({ ...key, revokedAt: at(5) });
      expect(await storage.apiKeys.revoke(key.id, at(9))).toBe(false);
      expect((await raw.apiKey(key.id))?.revokedAt).toBe(at(5));
      expect(await storage.apiKeys.revoke("key_0000000000000000000000000", at(9))).toBe(false);
    });
  });
}
