import { describe, expect, it } from "vitest";
import type { AttemptOutcome, DeliveryRecord } from "../../ports.js";
import { anAttempt, at, completeOne } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { seedDelivery, seedOrganization, seedWebhook, twoSeededOrganizations } from "./seed.js";

const LEASE_MS = 30_000;

/** Deliveries: attempts, outcomes, cancel and redeliver. */
export function deliveryOutcomesContract(harness: () => StorageHarness): void {
  const claimed = async (h: StorageHarness) => {
    const org = await seedOrganization(h.storage);
    const delivery = await seedDelivery(h.storage, org);
    await h.storage.deliveries.claimDue(at(1), 1, "engine-1", LEASE_MS);
    const outcome = (next: AttemptOutcome["next"], attempt = 0): AttemptOutcome => ({
      attempt: anAttempt({
        organizationId: org.organization.id,
        deliveryId: delivery.id,
        attempt,
        startedAt: at(1 + attempt),
      }),
      next,
    });
    return { org, delivery, outcome };
  };

  describe("deliveries.completeAttempts", () => {
    it("delivered: records the attempt, counts it, releases the lease and ends the delivery", async () => {
      const h = harness();
      const { delivery, outcome } = await claimed(h);
      const result = outcome({ status: "delivered" });
      const attempt = { ...result.attempt, statusCode: 204, error: null, responseBody: "" };
      expect(
        await completeOne(h.storage.deliveries, delivery.id, "engine-1", { ...result, attempt }),
      ).toBe(true);
      expect(await h.raw.delivery(delivery.id)).toMatchObject({
        status: "delivered",
        attempts: 1,
        firstAttemptAt: attempt.startedAt,
        leaseOwner: null,
        leaseExpiresAt: null,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: delivery.nextAttemptAt,
      });
      expect(await h.raw.attempts(delivery.id)).toEqual([attempt]);
    });

    it("pending: schedules the next attempt and keeps the first attempt's time", async () => {
      const h = harness();
      const { delivery, outcome } = await claimed(h);
      const first = outcome({ status: "pending", nextAttemptAt: at(31) });
      expect(await completeOne(h.storage.deliveries, delivery.id, "engine-1", first)).toBe(true);
      expect(await h.raw.delivery(delivery.id)).toMatchObject({
        status: "pending",
        attempts: 1,
        nextAttemptAt: at(31),
        firstAttemptAt: at(1),
        leaseOwner: null,
        leaseExpiresAt: null,
        lastStatusCode: 500,
      });
      await h.storage.deliveries.claimDue(at(31), 1, "engine-2", LEASE_MS);
      const second = outcome({ status: "pending", nextAttemptAt: at(91) }, 1);
      const timeout = { ...second.attempt, statusCode: null, error: "timeout", responseBody: null };
      expect(
        await completeOne(h.storage.deliveries, delivery.id, "engine-2", {
          ...second,
          attempt: timeout,
        }),
      ).toBe(true);
      expect(await h.raw.delivery(delivery.id)).toMatchObject({
        attempts: 2,
        nextAttemptAt: at(91),
        firstAttemptAt: at(1),
        lastStatusCode: null,
        lastError: "timeout",
      });
      expect(await h.raw.attempts(delivery.id)).toEqual([first.attempt, timeout]);
    });

    it("failed: ends the delivery as failed", async () => {
      const h = harness();
      const { delivery, outcome } = await claimed(h);
      expect(
        await completeOne(
          h.storage.deliveries,
          delivery.id,
          "engine-1",
          outcome({ status: "failed" }),
        ),
      ).toBe(true);
      expect(await h.raw.delivery(delivery.id)).toMatchObject({
        status: "failed",
        attempts: 1,
        leaseOwner: null,
      });
      expect(await h.storage.deliveries.claimDue(at(1000), 10, "engine-1", LEASE_MS)).toEqual([]);
    });

    it("is false when the caller does not hold the lease: the delivery is untouched, the attempt still logged", async () => {
      const h = harness();
      const { delivery, outcome } = await claimed(h);
      const before = await h.raw.delivery(delivery.id);
      const stray = outcome({ status: "delivered" });
      expect(await completeOne(h.storage.deliveries, delivery.id, "engine-2", stray)).toBe(false);
      expect(await h.raw.delivery(delivery.id)).toEqual(before);
      // It went out, so it is in the log, under the stored delivery's ids.
      expect(await h.raw.attempts(delivery.id)).toEqual([stray.attempt]);
    });

    it("once the lease expired and another engine claimed it: the late attempt is logged, the new owner's outcome applies", async () => {
      const h = harness();
      const { delivery, outcome } = await claimed(h);
      await h.storage.deliveries.claimDue(at(100), 1, "engine-2", LEASE_MS);
      const before = await h.raw.delivery(delivery.id);
      const late = outcome({ status: "delivered" });
      expect(await completeOne(h.storage.deliveries, delivery.id, "engine-1", late)).toBe(false);
      expect(await h.raw.delivery(delivery.id)).toEqual(before);
      expect(await h.raw.attempts(delivery.id)).toEqual([late.attempt]);

      const retaken = {
        ...outcome({ status: "pending", nextAttemptAt: at(160) }),
        attempt: { ...late.attempt, startedAt: at(100), statusCode: 503 },
      };
      expect(await completeOne(h.storage.deliveries, delivery.id, "engine-2", retaken)).toBe(true);
      expect(await h.raw.delivery(delivery.id)).toMatchObject({
        status: "pending",
        attempts: 1,
        nextAttemptAt: at(160),
        leaseOwner: null,
        lastStatusCode: 503,
      });
      expect(await h.raw.attempts(delivery.id)).toEqual([late.attempt, retaken.attempt]);
    });

    it("a late attempt on a delivery that is already delivered is logged and changes nothing else", async () => {
      const h = harness();
      const { delivery, outcome } = await claimed(h);
      const done = outcome({ status: "delivered" });
      await completeOne(h.storage.deliveries, delivery.id, "engine-1", done);
      const before = await h.raw.delivery(delivery.id);
      const again = outcome({ status: "failed" }, 1);
      expect(await completeOne(h.storage.deliveries, delivery.id, "engine-1", again)).toBe(false);
      expect(await h.raw.delivery(delivery.id)).toEqual(before);
      expect(await h.raw.attempts(delivery.id)).toEqual([done.attempt, again.attempt]);
    });

    it("is false for an unclaimed delivery (which keeps its state) and for an unknown one (nothing written)", async () => {
      const h = harness();
      const org = await seedOrganization(h.storage);
      const delivery = await seedDelivery(h.storage, org);
      const outcome: AttemptOutcome = {
        attempt: anAttempt({ organizationId: org.organization.id, deliveryId: delivery.id }),
        next: { status: "delivered" },
      };
      expect(await completeOne(h.storage.deliveries, delivery.id, "engine-1", outcome)).toBe(false);
      expect(await h.raw.delivery(delivery.id)).toEqual(delivery);
      const unknown = "01890000-0000-7000-8000-000000000000";
      const stray = { ...outcome, attempt: { ...outcome.attempt, deliveryId: unknown } };
      expect(await completeOne(h.storage.deliveries, unknown, "engine-1", stray)).toBe(false);
      expect(await h.raw.attempts(unknown)).toEqual([]);
      expect(await h.raw.delivery(unknown)).toBeNull();
    });

    it("records a batch as one: each answer in the order given, each attempt logged once", async () => {
      const h = harness();
      const org = await seedOrganization(h.storage);
      // The lost one was claimed again by another engine after engine-1's lease ran out.
      const lost = await seedDelivery(h.storage, org);
      await h.storage.deliveries.claimDue(at(1), 1, "engine-1", LEASE_MS);
      await h.storage.deliveries.claimDue(at(100), 1, "engine-2", LEASE_MS);
      const first = await seedDelivery(h.storage, org);
      const second = await seedDelivery(h.storage, org);
      expect(
        (await h.storage.deliveries.claimDue(at(100), 2, "engine-1", LEASE_MS)).map((d) => d.id),
      ).toEqual([first.id, second.id]);
      const attemptOn = (d: DeliveryRecord, startedAt: string) =>
        anAttempt({ organizationId: org.organization.id, deliveryId: d.id, startedAt });
      const unknown = "01890000-0000-7000-8000-000000000000";
      const batch = [
        { id: second.id, attempt: attemptOn(second, at(2)), next: { status: "failed" } },
        { id: unknown, attempt: attemptOn(first, at(2)), next: { status: "delivered" } },
        { id: lost.id, attempt: attemptOn(lost, at(2)), next: { status: "delivered" } },
        {
          id: first.id,
          attempt: attemptOn(first, at(3)),
          next: { status: "pending", nextAttemptAt: at(33) },
        },
      ] as const;
      expect(await h.storage.deliveries.completeAttempts("engine-1", batch)).toEqual([
        true,
        false,
        false,
        true,
      ]);
      expect(await h.raw.delivery(first.id)).toMatchObject({
        status: "pending",
        nextAttemptAt: at(33),
        leaseOwner: null,
      });
      expect(await h.raw.delivery(second.id)).toMatchObject({ status: "failed", attempts: 1 });
      expect(await h.raw.delivery(lost.id)).toMatchObject({
        status: "pending",
        attempts: 0,
        leaseOwner: "engine-2",
      });
      expect(await h.raw.attempts(first.id)).toEqual([batch[3].attempt]);
      expect(await h.raw.attempts(second.id)).toEqual([batch[0].attempt]);
      expect(await h.raw.attempts(lost.id)).toEqual([batch[2].attempt]);
      expect(await h.raw.attempts(unknown)).toEqual([]);
      expect(await h.storage.deliveries.completeAttempts("engine-1", [])).toEqual([]);
    });

    it("a delivery given twice in one batch: both attempts logged in order, only the first applies", async () => {
      const h = harness();
      const { delivery, outcome } = await claimed(h);
      const retry = outcome({ status: "pending", nextAttemptAt: at(40) });
      const again = outcome({ status: "delivered" }, 1);
      expect(
        await h.storage.deliveries.completeAttempts("engine-1", [
          { id: delivery.id, ...retry },
          { id: delivery.id, ...again },
        ]),
      ).toEqual([true, false]);
      expect(await h.raw.delivery(delivery.id)).toMatchObject({
        status: "pending",
        attempts: 1,
        nextAttemptAt: at(40),
        leaseOwner: null,
      });
      expect(await h.raw.attempts(delivery.id)).toEqual([retry.attempt, again.attempt]);
    });

    it("the very same attempt given twice is answered by position: applied once, then refused", async () => {
      const h = harness();
      const { delivery, outcome } = await claimed(h);
      const attempt = { id: delivery.id, ...outcome({ status: "delivered" }) };
      expect(await h.storage.deliveries.completeAttempts("engine-1", [attempt, attempt])).toEqual([
        true,
        false,
      ]);
      expect(await h.raw.attempts(delivery.id)).toEqual([attempt.attempt, attempt.attempt]);
    });

    it("listAttempts returns a delivery's attempts in order, in its organization only", async () => {
      const h = harness();
      const other = await seedOrganization(h.storage);
      const { org, delivery, outcome } = await claimed(h);
      const first = outcome({ status: "pending", nextAttemptAt: at(2) });
      await completeOne(h.storage.deliveries, delivery.id, "engine-1", first);
      await h.storage.deliveries.claimDue(at(2), 1, "engine-1", LEASE_MS);
      const second = outcome({ status: "delivered" }, 1);
      await completeOne(h.storage.deliveries, delivery.id, "engine-1", second);
      const orgId = org.organization.id;
      expect(await h.storage.deliveries.listAttempts(orgId, delivery.id)).toEqual([
        first.attempt,
        second.attempt,
      ]);
      expect(await h.storage.deliveries.listAttempts(other.organization.id, delivery.id)).toEqual(
        [],
      );
    });
  });

  describe("deliveries.cancelForSubscription", () => {
    it("cancels only the pending deliveries to that subscription and counts them", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const hook = await seedWebhook(storage, org);
      const otherHook = await seedWebhook(storage, org);
      const p1 = await seedDelivery(storage, org, {}, hook);
      const p2 = await seedDelivery(storage, org, { nextAttemptAt: at(60) }, hook);
      const done = await seedDelivery(storage, org, { status: "delivered" }, hook);
      const failed = await seedDelivery(storage, org, { status: "failed" }, hook);
      const elsewhere = await seedDelivery(storage, org, {}, otherHook);
      expect(
        await storage.deliveries.cancelForSubscription(org.organization.id, hook.id, at(9)),
      ).toBe(2);
      for (const d of [p1, p2]) {
        expect(await raw.delivery(d.id)).toMatchObject({ status: "cancelled", updatedAt: at(9) });
      }
      for (const d of [done, failed, elsewhere]) expect(await raw.delivery(d.id)).toEqual(d);
      expect(await storage.deliveries.claimDue(at(100), 10, "engine-1", LEASE_MS)).toHaveLength(1);
    });

    it("an attempt in flight when its delivery is cancelled is logged but cannot revive it", async () => {
      const h = harness();
      const { org, delivery, outcome } = await claimed(h);
      const webhookId =
        delivery.destination.kind === "subscription" ? delivery.destination.webhookId : "";
      expect(
        await h.storage.deliveries.cancelForSubscription(org.organization.id, webhookId, at(2)),
      ).toBe(1);
      const inFlight = outcome({ status: "pending", nextAttemptAt: at(40) });
      expect(await completeOne(h.storage.deliveries, delivery.id, "engine-1", inFlight)).toBe(
        false,
      );
      expect(await h.raw.delivery(delivery.id)).toMatchObject({
        status: "cancelled",
        attempts: 0,
        updatedAt: at(2),
        leaseOwner: null,
      });
      expect(await h.raw.attempts(delivery.id)).toEqual([inFlight.attempt]);
      expect(await h.storage.deliveries.listAttempts(org.organization.id, delivery.id)).toEqual([
        inFlight.attempt,
      ]);
      expect(await h.storage.deliveries.claimDue(at(100), 10, "engine-2", LEASE_MS)).toEqual([]);
    });

    it("does nothing for another organization", async () => {
      const { storage, raw, org, other } = await twoSeededOrganizations(harness);
      const hook = await seedWebhook(storage, org);
      const delivery = await seedDelivery(storage, org, {}, hook);
      expect(
        await storage.deliveries.cancelForSubscription(other.organization.id, hook.id, at(9)),
      ).toBe(0);
      expect(await raw.delivery(delivery.id)).toEqual(delivery);
    });
  });

  describe("deliveries.redeliver", () => {
    it("makes an ended delivery pending again, due at the given time, in a new retry window", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      for (const status of ["failed", "delivered", "cancelled"] as const) {
        const delivery = await seedDelivery(storage, org, {
          status,
          attempts: 3,
          firstAttemptAt: at(2),
          lastStatusCode: 500,
          lastAttemptAt: at(4),
        });
        expect(await storage.deliveries.redeliver(org.organization.id, delivery.id, at(500))).toBe(
          true,
        );
        expect(await raw.delivery(delivery.id)).toEqual({
          ...delivery,
          status: "pending",
          nextAttemptAt: at(500),
          firstAttemptAt: null,
          windowStartAttempt: 3,
          updatedAt: at(500),
        });
        const claimed = await storage.deliveries.claimDue(at(500), 10, "engine-1", LEASE_MS);
        expect(claimed.map((d) => d.id)).toEqual([delivery.id]);
        expect(claimed[0]).toMatchObject({ attempts: 3, payload: delivery.payload });
      }
    });

    it("is false (nothing written) when pending, leased, unknown or another organization's", async () => {
      const { storage, raw, org, other } = await twoSeededOrganizations(harness);
      const failed = await seedDelivery(storage, org, { status: "failed" });
      expect(await storage.deliveries.redeliver(other.organization.id, failed.id, at(5))).toBe(
        false,
      );
      expect(await raw.delivery(failed.id)).toEqual(failed);
      const pending = await seedDelivery(storage, org, { status: "pending" });
      // A cancelled delivery whose attempt is still in flight keeps its live lease.
      const inFlight = await seedDelivery(storage, org, {
        status: "cancelled",
        leaseOwner: "engine-1",
        leaseExpiresAt: at(30),
      });
      for (const d of [pending, inFlight]) {
        expect(await storage.deliveries.redeliver(org.organization.id, d.id, at(5))).toBe(false);
        expect(await raw.delivery(d.id)).toEqual(d);
      }
      expect(
        await storage.deliveries.redeliver(
          org.organization.id,
          "0190a000-0000-7000-8000-000000000000",
          at(5),
        ),
      ).toBe(false);
      // Once the lease has ended, nothing is in flight any more.
      expect(await storage.deliveries.redeliver(org.organization.id, inFlight.id, at(30))).toBe(
        true,
      );
    });

    it("of two concurrent redeliveries exactly one succeeds", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const failed = await seedDelivery(storage, org, { status: "failed" });
      const answers = await Promise.all(
        [1, 2, 3].map(() => storage.deliveries.redeliver(org.organization.id, failed.id, at(5))),
      );
      expect(answers.filter(Boolean)).toHaveLength(1);
    });

    it("a redelivery racing the engine's attempt never makes a second attempt in flight", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const delivery = await seedDelivery(storage, org, { status: "failed", attempts: 2 });
      expect(await storage.deliveries.redeliver(org.organization.id, delivery.id, at(5))).toBe(
        true,
      );
      const [leased] = await storage.deliveries.claimDue(at(5), 10, "engine-1", LEASE_MS);
      expect(leased?.id).toBe(delivery.id);
      // While the engine holds it, a second redelivery is refused and nobody else can claim it.
      expect(await storage.deliveries.redeliver(org.organization.id, delivery.id, at(6))).toBe(
        false,
      );
      expect(await storage.deliveries.claimDue(at(6), 10, "engine-2", LEASE_MS)).toEqual([]);
      const attempt = anAttempt({
        organizationId: org.organization.id,
        deliveryId: delivery.id,
        attempt: 2,
        startedAt: at(6),
        statusCode: 204,
      });
      expect(
        await completeOne(storage.deliveries, delivery.id, "engine-1", {
          attempt,
          next: { status: "delivered" },
        }),
      ).toBe(true);
      expect(await raw.delivery(delivery.id)).toMatchObject({
        status: "delivered",
        attempts: 3,
        firstAttemptAt: at(6),
        lastAttemptAt: at(6),
        windowStartAttempt: 2,
      });
      expect((await raw.attempts(delivery.id)).map((a) => a.attempt)).toEqual([2]);
    });
  });

  describe("deliveries.requeueForSubscription", () => {
    it("redelivers the subscription's failed and cancelled deliveries created since, and only those", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const hook = await seedWebhook(storage, org);
      const elsewhere = await seedWebhook(storage, org);
      const ofHook = (overrides: Partial<DeliveryRecord>) =>
        seedDelivery(storage, org, overrides, hook);
      const old = await ofHook({ status: "failed", createdAt: at(1) });
      const failed = await ofHook({ status: "failed", createdAt: at(10) });
      const cancelled = await ofHook({ status: "cancelled", createdAt: at(11), attempts: 1 });
      const delivered = await ofHook({ status: "delivered", createdAt: at(12) });
      const pending = await ofHook({ status: "pending", createdAt: at(13) });
      const other = await seedDelivery(
        storage,
        org,
        { status: "failed", createdAt: at(14) },
        elsewhere,
      );
      const stranger = await seedOrganization(storage);
      expect(
        await storage.deliveries.requeueForSubscription(
          stranger.organization.id,
          hook.id,
          at(0),
          at(50),
        ),
      ).toBe(0);
      expect(
        await storage.deliveries.requeueForSubscription(
          org.organization.id,
          hook.id,
          at(10),
          at(50),
        ),
      ).toBe(2);
      for (const d of [failed, cancelled]) {
        expect(await raw.delivery(d.id)).toEqual({
          ...d,
          status: "pending",
          nextAttemptAt: at(50),
          firstAttemptAt: null,
          windowStartAttempt: d.attempts,
          updatedAt: at(50),
        });
      }
      for (const d of [old, delivered, pending, other]) expect(await raw.delivery(d.id)).toEqual(d);
    });
  });
}
