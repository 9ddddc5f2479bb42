import { describe, expect, it } from "vitest";
import type { WebhookSubscriptionRecord } from "../../ports.js";
import { at, aWebhook } from "./fixtures.js";
import { anOrganizationIn } from "./profiles-contract.js";
import type { StorageHarness } from "./raw.js";

/** Webhook subscriptions. */
export function webhooksContract(harness: () => StorageHarness): void {
  describe("webhooks", () => {
    it("insert stores a subscription; get reads it only in its organization, getById by id alone", async () => {
      const { storage, raw } = harness();
      const orgA = await anOrganizationIn(storage);
      const orgB = await anOrganizationIn(storage);
      const webhook = aWebhook({
        organizationId: orgA,
        topics: ["message.delivered", "message.failed"],
        description: "CRM sync",
      });
      await storage.webhooks.insert(webhook);
      expect(await raw.webhook(webhook.id)).toEqual(webhook);
      expect(await storage.webhooks.get(orgA, webhook.id)).toEqual(webhook);
      expect(await storage.webhooks.get(orgB, webhook.id)).toBeNull();
      expect(await storage.webhooks.getById(webhook.id)).toEqual(webhook);
      expect(await storage.webhooks.getById("whk_0000000000000000000000000")).toBeNull();
    });

    it("list returns the organization's subscriptions oldest first, inactive ones included", async () => {
      const { storage } = harness();
      const orgA = await anOrganizationIn(storage);
      const orgB = await anOrganizationIn(storage);
      const later = aWebhook({ organizationId: orgA, createdAt: at(2) });
      const earlier = aWebhook({ organizationId: orgA, createdAt: at(1), status: "inactive" });
      await storage.webhooks.insert(later);
      await storage.webhooks.insert(earlier);
      await storage.webhooks.insert(aWebhook({ organizationId: orgB }));
      expect(await storage.webhooks.list(orgA)).toEqual([earlier, later]);
    });

    it("update replaces the mutable fields; false (nothing written) when unknown or foreign", async () => {
      const { storage, raw } = harness();
      const orgA = await anOrganizationIn(storage);
      const orgB = await anOrganizationIn(storage);
      const webhook = aWebhook({ organizationId: orgA });
      await storage.webhooks.insert(webhook);
      const changed: WebhookSubscriptionRecord = {
        ...webhook,
        url: "https://other.example.com/in",
        topics: ["message.expired"],
        status: "inactive",
        description: "paused",
        secretSealed: "sealed:rotated",
        updatedAt: at(6),
      };
      expect(await storage.webhooks.update(changed)).toBe(true);
      expect(await raw.webhook(webhook.id)).toEqual(changed);
      expect(
        await storage.webhooks.update({
          ...changed,
          organizationId: orgB,
          url: "https://x.example",
        }),
      ).toBe(false);
      expect(
        await storage.webhooks.update({ ...changed, id: "whk_0000000000000000000000000" }),
      ).toBe(false);
      expect(await raw.webhook(webhook.id)).toEqual(changed);
      expect(await raw.webhook("whk_0000000000000000000000000")).toBeNull();
    });

    it("delete removes the subscription; false when unknown or foreign", async () => {
      const { storage, raw } = harness();
      const orgA = await anOrganizationIn(storage);
      const orgB = await anOrganizationIn(storage);
      const webhook = aWebhook({ organizationId: orgA });
      await storage.webhooks.insert(webhook);
      expect(await storage.webhooks.delete(orgB, webhook.id)).toBe(false);
      expect(await raw.webhook(webhook.id)).toEqual(webhook);
      expect(await storage.webhooks.delete(orgA, webhook.id)).toBe(true);
      expect(await raw.webhook(webhook.id)).toBeNull();
      expect(await storage.webhooks.get(orgA, webhook.id)).toBeNull();
      expect(await storage.webhooks.list(orgA)).toEqual([]);
      expect(await storage.webhooks.delete(orgA, webhook.id)).toBe(false);
    });

    it("lockOrganization inside transactions serializes a check-then-insert (20 racers, limit 5)", async () => {
      const { storage } = harness();
      const organizationId = await anOrganizationIn(storage);
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () =>
          storage.transaction(async (tx) => {
            await tx.webhooks.lockOrganization(organizationId);
            const active = (await tx.webhooks.list(organizationId)).filter(
              (w) => w.status === "active",
            );
            if (active.length >= 5) return false;
            await tx.webhooks.insert(aWebhook({ organizationId }));
            return true;
          }),
        ),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(5);
      expect(await storage.webhooks.list(organizationId)).toHaveLength(5);
    });
  });
}
