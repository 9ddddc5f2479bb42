import { describe, expect, it } from "vitest";
import type { DeliveryRecord } from "../../ports.js";
import { at, T0 } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { seedDelivery, seedOrganization, seedWebhook, twoSeededOrganizations } from "./seed.js";

const LEASE_MS = 30_000;

/** Deliveries: reads and lease claims. */
export function deliveryClaimsContract(harness: () => StorageHarness): void {
  describe("deliveries: reads", () => {
    it("insert stores a delivery; get reads it only in its organization", async () => {
      const { storage, raw, org, other } = await twoSeededOrganizations(harness);
      const delivery = await seedDelivery(storage, org, { payload: '{"hello":"world"}' });
      expect(await raw.delivery(delivery.id)).toEqual(delivery);
      expect(await storage.deliveries.get(org.organization.id, delivery.id)).toEqual(delivery);
      expect(await storage.deliveries.get(other.organization.id, delivery.id)).toBeNull();
      expect(
        await storage.deliveries.get(org.organization.id, "01890000-0000-7000-8000-000000000000"),
      ).toBeNull();
    });

    it("a delivery to a message's own URL keeps its destination and its destination key", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const destination = {
        kind: "message" as const,
        url: "https://example.com/own",
        apiKeyId: org.apiKey.id,
      };
      const delivery = await seedDelivery(storage, org, {
        destination,
        destinationKey: "url:https://example.com",
      });
      expect(await raw.delivery(delivery.id)).toMatchObject({
        destination,
        destinationKey: "url:https://example.com",
      });
    });

    it("listForMessage returns a message's deliveries oldest first, in its organization only", async () => {
      const { storage, raw, org, other } = await twoSeededOrganizations(harness);
      const first = await seedDelivery(storage, org, { createdAt: at(1) });
      const messageId = first.messageId!;
      const hookB = await seedWebhook(storage, org);
      const second = {
        ...first,
        id: "01890000-0000-7000-8000-0000000000b2",
        createdAt: at(2),
        destination: { kind: "subscription" as const, webhookId: hookB.id },
        destinationKey: hookB.id,
      };
      await storage.deliveries.insert(second);
      await seedDelivery(storage, org);
      expect(await storage.deliveries.listForMessage(org.organization.id, messageId)).toEqual([
        first,
        second,
      ]);
      expect(await storage.deliveries.listForMessage(other.organization.id, messageId)).toEqual([]);
      expect((await raw.deliveries()).map((d) => d.id)).toContain(second.id);
    });

    it("nextDueAt is the earliest nextAttemptAt among pending deliveries, or null", async () => {
      const { storage } = harness();
      expect(await storage.deliveries.nextDueAt()).toBeNull();
      const org = await seedOrganization(storage);
      await seedDelivery(storage, org, { nextAttemptAt: at(50) });
      await seedDelivery(storage, org, { nextAttemptAt: at(5), status: "failed" });
      await seedDelivery(storage, org, { nextAttemptAt: at(6), status: "delivered" });
      await seedDelivery(storage, org, { nextAttemptAt: at(7), status: "cancelled" });
      await seedDelivery(storage, org, { nextAttemptAt: at(20) });
      expect(await storage.deliveries.nextDueAt()).toBe(at(20));
    });
  });

  describe("deliveries.claimDue", () => {
    it("leases due pending deliveries oldest nextAttemptAt first, at most limit, setting owner and expiry", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const c = await seedDelivery(storage, org, { nextAttemptAt: at(3) });
      const a = await seedDelivery(storage, org, { nextAttemptAt: at(1) });
      const b = await seedDelivery(storage, org, { nextAttemptAt: at(2) });
      const claimed = await storage.deliveries.claimDue(at(10), 2, "engine-1", LEASE_MS);
      const leased = { leaseOwner: "engine-1", leaseExpiresAt: at(10 + LEASE_MS / 1000) };
      expect(claimed.map((d) => d.id)).toEqual([a.id, b.id]);
      // Whether a claim moves `updatedAt` is the adapter's choice; every other field is fixed.
      const { updatedAt: _updatedAt, ...unchanged } = a;
      expect(claimed[0]).toMatchObject({ ...unchanged, ...leased });
      expect(claimed[0]).toEqual(await raw.delivery(a.id));
      expect(await raw.delivery(a.id)).toMatchObject(leased);
      expect(await raw.delivery(b.id)).toMatchObject(leased);
      expect(await raw.delivery(c.id)).toEqual(c);
    });

    it("skips deliveries not yet due, not pending, or leased by someone whose lease has not expired", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      await seedDelivery(storage, org, { nextAttemptAt: at(11) });
      await seedDelivery(storage, org, { status: "failed" });
      await seedDelivery(storage, org, { status: "delivered" });
      await seedDelivery(storage, org, { status: "cancelled" });
      await seedDelivery(storage, org, { leaseOwner: "engine-0", leaseExpiresAt: at(15) });
      const due = await seedDelivery(storage, org, { nextAttemptAt: at(10) });
      const claimed = await storage.deliveries.claimDue(at(10), 10, "engine-1", LEASE_MS);
      expect(claimed.map((d) => d.id)).toEqual([due.id]);
    });

    it("a claimed delivery is not claimed again until its lease expires, then another owner takes it", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const delivery = await seedDelivery(storage, org);
      expect(await storage.deliveries.claimDue(at(1), 10, "engine-1", LEASE_MS)).toHaveLength(1);
      expect(await storage.deliveries.claimDue(at(2), 10, "engine-2", LEASE_MS)).toEqual([]);
      expect(await storage.deliveries.claimDue(at(30), 10, "engine-2", LEASE_MS)).toEqual([]);
      const retaken = await storage.deliveries.claimDue(at(31.001), 10, "engine-2", LEASE_MS);
      expect(retaken.map((d) => d.id)).toEqual([delivery.id]);
      expect(await raw.delivery(delivery.id)).toMatchObject({
        leaseOwner: "engine-2",
        leaseExpiresAt: new Date(T0 + 31_001 + LEASE_MS).toISOString(),
      });
    });

    it("claims across organizations", async () => {
      const { storage } = harness();
      const orgA = await seedOrganization(storage);
      const orgB = await seedOrganization(storage);
      const a = await seedDelivery(storage, orgA, { nextAttemptAt: at(1) });
      const b = await seedDelivery(storage, orgB, { nextAttemptAt: at(2) });
      const claimed = await storage.deliveries.claimDue(at(5), 10, "engine-1", LEASE_MS);
      expect(claimed.map((d) => d.id)).toEqual([a.id, b.id]);
    });

    it("excludeDestinations: rows of an excluded destination are neither claimed nor leased", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const busy = await seedWebhook(storage, org);
      const other = await seedWebhook(storage, org);
      const backlog: DeliveryRecord[] = [];
      for (let i = 1; i <= 3; i++) {
        backlog.push(await seedDelivery(storage, org, { nextAttemptAt: at(i) }, busy));
      }
      const busyKey = backlog[0]!.destinationKey;
      const toOther = await seedDelivery(storage, org, { nextAttemptAt: at(4) }, other);
      const ownKey = "url:https://own.example.com:8443";
      const own = await seedDelivery(storage, org, {
        nextAttemptAt: at(5),
        destination: { kind: "message", url: "https://own.example.com:8443/x", apiKeyId: "k" },
        destinationKey: ownKey,
      });
      const ownLater = await seedDelivery(storage, org, {
        nextAttemptAt: at(6),
        destination: { kind: "message", url: "https://own.example.com:8443/y", apiKeyId: "k" },
        destinationKey: ownKey,
      });

      const claimed = await storage.deliveries.claimDue(at(10), 2, "engine-1", LEASE_MS, {
        excludeDestinations: [busyKey],
      });
      expect(claimed.map((d) => d.id)).toEqual([toOther.id, own.id]);
      for (const d of backlog) expect(await raw.delivery(d.id)).toEqual(d);

      const rest = await storage.deliveries.claimDue(at(10), 10, "engine-1", LEASE_MS, {
        excludeDestinations: [busyKey, ownKey],
      });
      expect(rest).toEqual([]);
      expect(await raw.delivery(ownLater.id)).toEqual(ownLater);

      // An empty or absent list excludes nothing.
      const all = await storage.deliveries.claimDue(at(10), 10, "engine-2", LEASE_MS, {
        excludeDestinations: [],
      });
      expect(all.map((d) => d.id)).toEqual([...backlog.map((d) => d.id), ownLater.id]);
    });

    it("excludeDestinations: rows another engine holds are passed over too", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const busy = await seedWebhook(storage, org);
      const other = await seedWebhook(storage, org);
      const { destinationKey: busyKey } = await seedDelivery(
        storage,
        org,
        { nextAttemptAt: at(1) },
        busy,
      );
      const held = await seedDelivery(storage, org, { nextAttemptAt: at(2) }, other);
      const free = await seedDelivery(storage, org, { nextAttemptAt: at(3) }, other);
      expect(
        (
          await storage.deliveries.claimDue(at(10), 1, "engine-1", LEASE_MS, {
            excludeDestinations: [busyKey],
          })
        ).map((d) => d.id),
      ).toEqual([held.id]);
      const claimed = await storage.deliveries.claimDue(at(10), 5, "engine-2", LEASE_MS, {
        excludeDestinations: [busyKey],
      });
      expect(claimed.map((d) => [d.id, d.leaseOwner])).toEqual([[free.id, "engine-2"]]);
    });

    it("concurrent claimers never receive the same delivery", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const webhook = await seedWebhook(storage, org);
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        ids.push((await seedDelivery(storage, org, { nextAttemptAt: at(i / 10) }, webhook)).id);
      }
      const batches = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          storage.deliveries.claimDue(at(10), 5, `engine-${i}`, LEASE_MS),
        ),
      );
      const claimed = batches.flat().map((d) => d.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.sort()).toEqual([...ids].sort());
    });
  });
}
