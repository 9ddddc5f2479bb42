import { describe, expect, it } from "vitest";
import { at, aWebhook } from "./fixtures.js";
import { gate, settledOrAfter } from "./gates.js";
import { expectOrganizationListOldestFirst } from "./organization-list.js";
import type { StorageHarness } from "./raw.js";
import { anOrganizationIn, twoOrganizations } from "./seed.js";

/** Webhook subscriptions. */
export function webhooksContract(harness: () => StorageHarness): void {
  describe("webhooks", () => {
    it("insert stores a subscription; get reads it only in its organization, getById by id alone", async () => {
      const { storage, raw, orgA, orgB } = await twoOrganizations(harness);
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

    it("list returns the organization's subscriptions oldest first, inactive ones included", () =>
      expectOrganizationListOldestFirst(harness, "webhooks", (organizationId, createdAt) =>
        aWebhook({ organizationId, createdAt, status: "inactive" }),
      ));

    it("update writes the given fields; false (nothing written) when unknown or foreign", async () => {
      const { storage, raw, orgA, orgB } = await twoOrganizations(harness);
      const webhook = aWebhook({ organizationId: orgA, description: "CRM sync" });
      await storage.webhooks.insert(webhook);
      const changes = {
        url: "https://other.example.com/in",
        topics: ["message.expired" as const],
        status: "inactive" as const,
        description: null,
        secretSealed: "sealed:rotated",
        updatedAt: at(6),
      };
      expect(await storage.webhooks.update(orgA, webhook.id, changes)).toBe(true);
      const changed = { ...webhook, ...changes };
      expect(await raw.webhook(webhook.id)).toEqual(changed);
      expect(
        await storage.webhooks.update(orgB, webhook.id, {
          url: "https://x.example",
          updatedAt: at(7),
        }),
      ).toBe(false);
      expect(await storage.webhooks.update(orgA, "whk_0000000000000000000000000", changes)).toBe(
        false,
      );
      expect(await raw.webhook(webhook.id)).toEqual(changed);
      expect(await raw.webhook("whk_0000000000000000000000000")).toBeNull();
    });

    it("update leaves every field it is not given as stored, so writers of different fields both stick", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const webhook = aWebhook({ organizationId, description: "CRM sync" });
      await storage.webhooks.insert(webhook);
      // Two writers that read the same row: one deactivates it, the other rotates its secret.
      await storage.webhooks.update(organizationId, webhook.id, {
        status: "inactive",
        updatedAt: at(5),
      });
      await storage.webhooks.update(organizationId, webhook.id, {
        secretSealed: "sealed:rotated",
        updatedAt: at(6),
      });
      expect(await raw.webhook(webhook.id)).toEqual({
        ...webhook,
        status: "inactive",
        secretSealed: "sealed:rotated",
        updatedAt: at(6),
      });
      // `undefined` is "not given" too; `null` clears the description.
      await storage.webhooks.update(organizationId, webhook.id, {
        url: undefined,
        description: null,
        updatedAt: at(7),
      });
      expect(await raw.webhook(webhook.id)).toMatchObject({
        url: webhook.url,
        description: null,
        secretSealed: "sealed:rotated",
        updatedAt: at(7),
      });
    });

    it("delete removes the subscription; false when unknown or foreign", async () => {
      const { storage, raw, orgA, orgB } = await twoOrganizations(harness);
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

    it("lockOrganization holds a second transaction until the first commits; its read after the lock sees the commit", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const webhook = aWebhook({ organizationId });
      await storage.webhooks.insert(webhook);
      const order: string[] = [];
      const firstLocked = gate();
      const firstMayWrite = gate();
      const first = storage.transaction(async (tx) => {
        await tx.webhooks.lockOrganization(organizationId);
        firstLocked.open();
        await firstMayWrite.promise;
        order.push("first writes");
        await tx.webhooks.update(organizationId, webhook.id, {
          status: "inactive",
          updatedAt: at(5),
        });
      });
      await firstLocked.promise;
      const second = storage.transaction(async (tx) => {
        await tx.webhooks.lockOrganization(organizationId);
        order.push("second locked");
        return tx.webhooks.get(organizationId, webhook.id);
      });
      // Time for the second to run ahead, were the lock not held.
      await settledOrAfter(second, 150);
      firstMayWrite.open();
      await first;
      expect((await second)?.status).toBe("inactive");
      expect(order).toEqual(["first writes", "second locked"]);
      expect((await raw.webhook(webhook.id))?.status).toBe("inactive");
    });

    it("lockOrganization is released by a rollback, and the rolled-back write is not seen", async () => {
      const { storage, raw } = harness();
      const organizationId = await anOrganizationIn(storage);
      const webhook = aWebhook({ organizationId });
      await storage.webhooks.insert(webhook);
      const firstLocked = gate();
      const firstMayFail = gate();
      const first = storage.transaction(async (tx) => {
        await tx.webhooks.lockOrganization(organizationId);
        await tx.webhooks.update(organizationId, webhook.id, {
          status: "inactive",
          updatedAt: at(5),
        });
        firstLocked.open();
        await firstMayFail.promise;
        throw new Error("rolled back");
      });
      await firstLocked.promise;
      const second = storage.transaction(async (tx) => {
        await tx.webhooks.lockOrganization(organizationId);
        return tx.webhooks.get(organizationId, webhook.id);
      });
      await settledOrAfter(second, 50);
      firstMayFail.open();
      await expect(first).rejects.toThrow("rolled back");
      expect((await second)?.status).toBe("active");
      expect(await raw.webhook(webhook.id)).toEqual(webhook);
    });
  });
}
