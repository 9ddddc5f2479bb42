import { describe, expect, it } from "vitest";
import type { CampaignRecord } from "../../ports.js";
import { aCampaign, aDelivery, at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import {
  seedDelivery,
  seedMessage,
  seedOrganization,
  seedWebhook,
  twoSeededOrganizations,
} from "./seed.js";

const ids = (rows: ReadonlyArray<{ id: string }>): string[] => rows.map((r) => r.id);

/** The operator's newest-first pages: campaigns, messages and deliveries, and campaign locks. */
export function operatorQueriesContract(harness: () => StorageHarness): void {
  describe("campaigns.listPage and campaigns.lock", () => {
    it("pages the organization's campaigns newest first, by status, below a seq", async () => {
      const { storage, org, other } = await twoSeededOrganizations(harness);
      const organizationId = org.organization.id;
      const made: CampaignRecord[] = [org.campaign];
      for (const status of ["inactive", "active", "inactive"] as const) {
        const campaign = aCampaign({ organizationId, status });
        await storage.campaigns.insert(campaign);
        made.push(campaign);
      }
      const all = await storage.campaigns.listPage({ organizationId, limit: 10 });
      expect(ids(all)).toEqual(ids(made).reverse());
      expect(all[0]).toEqual({ ...made[3], seq: all[0]?.seq });
      const seqs = all.map((c) => c.seq);
      expect([...seqs].sort((a, b) => b - a)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(seqs.length);
      const firstTwo = await storage.campaigns.listPage({ organizationId, limit: 2 });
      expect(ids(firstTwo)).toEqual(ids(all).slice(0, 2));
      const rest = await storage.campaigns.listPage({
        organizationId,
        beforeSeq: firstTwo[1]?.seq,
        limit: 10,
      });
      expect(ids(rest)).toEqual(ids(all).slice(2));
      const inactive = await storage.campaigns.listPage({
        organizationId,
        status: "inactive",
        limit: 10,
      });
      expect(ids(inactive)).toEqual([made[3]?.id, made[1]?.id]);
      expect(
        ids(await storage.campaigns.listPage({ organizationId: other.organization.id, limit: 10 })),
      ).toEqual([other.campaign.id]);
    });

    it("two concurrent read-modify-writes of one campaign under its lock lose no field", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { id, organizationId } = org.campaign;
      const change = (patch: Partial<CampaignRecord>) =>
        storage.transaction(async (tx) => {
          await tx.campaigns.lock(organizationId, id);
          const current = await tx.campaigns.get(organizationId, id);
          if (!current) throw new Error("the campaign is gone");
          // Give the other writer every chance to read the same version.
          await new Promise((resolve) => setTimeout(resolve, 20));
          return tx.campaigns.update({ ...current, ...patch });
        });
      expect(await Promise.all([change({ name: "Renamed" }), change({ ttlSeconds: 600 })])).toEqual(
        [true, true],
      );
      expect(await raw.campaign(id)).toMatchObject({ name: "Renamed", ttlSeconds: 600 });
      // Locking what does not exist is harmless.
      await storage.transaction((tx) => tx.campaigns.lock(organizationId, "cmp_nothing"));
    });

    it("update changes channel and category too", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const changed = { ...org.campaign, channel: "viber" as const, category: "otp" as const };
      expect(await storage.campaigns.update(changed)).toBe(true);
      expect(await raw.campaign(org.campaign.id)).toEqual(changed);
    });
  });

  describe("messages.listPage", () => {
    it("filters by each field, combined, newest first, in the organization only", async () => {
      const { storage, org, other } = await twoSeededOrganizations(harness);
      const organizationId = org.organization.id;
      const secondCampaign = aCampaign({ organizationId });
      await storage.campaigns.insert(secondCampaign);
      const seed = async (overrides: Parameters<typeof seedMessage>[2]) =>
        (await seedMessage(storage, org, overrides)).message;
      const a = await seed({ clientReference: "order-1", createdAt: at(1) });
      const b = await seed({ clientReference: "order-2", status: "delivered", createdAt: at(2) });
      const c = await seed({
        clientReference: "order-1",
        campaignId: secondCampaign.id,
        phoneNumber: "+306940000001",
        status: "failed",
        createdAt: at(3),
      });
      const d = await seed({ clientReference: null, createdAt: at(4) });
      await seedMessage(storage, other, { clientReference: "order-1" });
      const page = (filters: object) =>
        storage.messages.listPage({ organizationId, limit: 10, ...filters }).then(ids);
      expect(await page({})).toEqual(ids([d, c, b, a]));
      expect(await page({ clientReference: "order-1" })).toEqual(ids([c, a]));
      expect(await page({ status: "delivered" })).toEqual(ids([b]));
      expect(await page({ campaignId: secondCampaign.id })).toEqual(ids([c]));
      expect(await page({ phoneNumber: "+306940000001" })).toEqual(ids([c]));
      expect(await page({ clientReference: "order-1", status: "sent" })).toEqual(ids([a]));
      // The bounds are strict.
      expect(await page({ createdAfter: at(1), createdBefore: at(4) })).toEqual(ids([c, b]));
      expect(await page({ clientReference: "nobody" })).toEqual([]);
      const all = await storage.messages.listPage({ organizationId, limit: 10 });
      expect(all[0]).toEqual({ ...d, seq: all[0]?.seq });
      const firstTwo = await storage.messages.listPage({ organizationId, limit: 2 });
      expect(ids(firstTwo)).toEqual(ids([d, c]));
      expect(await page({ beforeSeq: firstTwo[1]?.seq })).toEqual(ids([b, a]));
    });
  });

  describe("deliveries.listPage", () => {
    it("filters by status, subscription, message and creation time, newest first", async () => {
      const { storage, org, other } = await twoSeededOrganizations(harness);
      const organizationId = org.organization.id;
      const hook = await seedWebhook(storage, org);
      const elsewhere = await seedWebhook(storage, org);
      const a = await seedDelivery(storage, org, { createdAt: at(1), status: "failed" }, hook);
      const b = await seedDelivery(storage, org, { createdAt: at(2), status: "delivered" }, hook);
      const c = await seedDelivery(storage, org, { createdAt: at(3) }, elsewhere);
      const { message, event } = await seedMessage(storage, org);
      const own = aDelivery({
        organizationId,
        eventId: event.id,
        messageId: message.id,
        destination: {
          kind: "message",
          url: "https://r.example.com/h?t=1",
          apiKeyId: org.apiKey.id,
        },
        createdAt: at(4),
      });
      await storage.deliveries.insert(own);
      await seedDelivery(storage, other);
      const page = (filters: object) =>
        storage.deliveries.listPage({ organizationId, limit: 10, ...filters }).then(ids);
      expect(await page({})).toEqual(ids([own, c, b, a]));
      expect(await page({ webhookId: hook.id })).toEqual(ids([b, a]));
      expect(await page({ webhookId: hook.id, status: "failed" })).toEqual(ids([a]));
      expect(await page({ status: "pending" })).toEqual(ids([own, c]));
      expect(await page({ messageId: message.id })).toEqual(ids([own]));
      expect(await page({ messageId: a.messageId })).toEqual(ids([a]));
      expect(await page({ createdAfter: at(1), createdBefore: at(4) })).toEqual(ids([c, b]));
      const all = await storage.deliveries.listPage({ organizationId, limit: 10 });
      expect(all[0]).toEqual({ ...own, seq: all[0]?.seq });
      expect(await page({ beforeSeq: all[1]?.seq })).toEqual(ids([b, a]));
      expect(await page({ limit: 1 })).toEqual(ids([own]));
    });

    it("failing: pending deliveries whose last attempt did not answer 2xx", async () => {
      const { storage, org, other } = await twoSeededOrganizations(harness);
      const organizationId = org.organization.id;
      const hook = await seedWebhook(storage, org);
      const seed = (fields: object, minute: number) =>
        seedDelivery(storage, org, { createdAt: at(minute), ...fields }, hook);
      const unanswered = await seed({ attempts: 1, lastStatusCode: null }, 1);
      await seed({ attempts: 0 }, 2); // never attempted
      const answered500 = await seed({ attempts: 3, lastStatusCode: 500 }, 3);
      // Redelivered after a success: pending again, but its last attempt succeeded.
      await seed({ attempts: 2, lastStatusCode: 204 }, 4);
      await seed({ status: "failed", attempts: 5, lastStatusCode: 500 }, 5);
      await seed({ status: "delivered", attempts: 1, lastStatusCode: 200 }, 6);
      await seedDelivery(storage, other, { attempts: 1, lastStatusCode: 500 });
      const page = (filters: object) =>
        storage.deliveries.listPage({ organizationId, limit: 10, ...filters }).then(ids);
      expect(await page({ failing: true })).toEqual(ids([answered500, unanswered]));
      expect(await page({ failing: true, webhookId: hook.id, status: "pending" })).toEqual(
        ids([answered500, unanswered]),
      );
      expect(await page({ failing: true, createdAfter: at(1) })).toEqual(ids([answered500]));
      expect(await page({ failing: false })).toHaveLength(6);
    });
  });
}
