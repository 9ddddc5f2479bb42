import { describe, expect, it } from "vitest";
import type { DeliveryRecord } from "../../ports.js";
import { claimInSteps, recordThenClaim } from "../../webhooks/claim-steps.js";
import { anAttempt, at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { seedDelivery, seedOrganization, seedWebhook, twoSeededOrganizations } from "./seed.js";

const LEASE_MS = 30_000;

/** Fair claims, moving a destination's deliveries, and a failing subscription's bookkeeping. */
export function fairDeliveryContract(harness: () => StorageHarness): void {
  describe("deliveries.claimDue: fair between organizations and destinations", () => {
    it("an organization's long backlog takes turns with another's single due row", async () => {
      const { storage } = harness();
      const flooding = await seedOrganization(storage);
      const quiet = await seedOrganization(storage);
      const dead = await seedWebhook(storage, flooding);
      const backlog: DeliveryRecord[] = [];
      for (let i = 1; i <= 5; i++) {
        backlog.push(await seedDelivery(storage, flooding, { nextAttemptAt: at(i) }, dead));
      }
      const healthy = await seedDelivery(storage, quiet, { nextAttemptAt: at(9) });
      const claimed = await storage.deliveries.claimDue(at(10), 2, "engine-1", LEASE_MS);
      // Oldest due first would take two of the backlog; turns give each organization one.
      expect(claimed.map((d) => d.id)).toEqual([backlog[0]!.id, healthy.id]);
    });

    it("within an organization, destinations take turns; perDestination bounds each one", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const slow = await seedWebhook(storage, org);
      const fast = await seedWebhook(storage, org);
      const toSlow: DeliveryRecord[] = [];
      for (let i = 1; i <= 4; i++) {
        toSlow.push(await seedDelivery(storage, org, { nextAttemptAt: at(i) }, slow));
      }
      const toFast = [
        await seedDelivery(storage, org, { nextAttemptAt: at(7) }, fast),
        await seedDelivery(storage, org, { nextAttemptAt: at(8) }, fast),
      ];
      const firstTurns = await storage.deliveries.claimDue(at(10), 3, "engine-1", LEASE_MS);
      // Turn 1: each destination's oldest; turn 2: the slow one's next, older than fast's.
      expect(firstTurns.map((d) => d.id)).toEqual([toSlow[0]!.id, toSlow[1]!.id, toFast[0]!.id]);

      const bounded = await storage.deliveries.claimDue(at(10), 10, "engine-1", LEASE_MS, {
        perDestination: 1,
      });
      expect(bounded.map((d) => d.id)).toEqual([toSlow[2]!.id, toFast[1]!.id]);
    });

    it("onlyDestinations keeps to those destinations, less any excluded", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const a = await seedDelivery(storage, org, { nextAttemptAt: at(1) });
      const b = await seedDelivery(storage, org, { nextAttemptAt: at(2) });
      const c = await seedDelivery(storage, org, { nextAttemptAt: at(3) });
      const claimed = await storage.deliveries.claimDue(at(10), 10, "engine-1", LEASE_MS, {
        onlyDestinations: [b.destinationKey, c.destinationKey, "org_unknown https://x.example"],
        excludeDestinations: [c.destinationKey],
      });
      expect(claimed.map((d) => d.id)).toEqual([b.id]);
      expect(await raw.delivery(a.id)).toEqual(a);
      expect(await raw.delivery(c.id)).toEqual(c);
      expect(
        await storage.deliveries.claimDue(at(10), 10, "engine-1", LEASE_MS, {
          onlyDestinations: [],
        }),
      ).toEqual([]);
    });
  });

  describe("deliveries: a pass's claim in steps", () => {
    it("each step claims as claimDue would after the steps before it, within the pass's limit", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const other = await seedOrganization(storage);
      const answering = await seedWebhook(storage, org);
      const full = await seedWebhook(storage, org);
      const toAnswering: DeliveryRecord[] = [];
      for (let i = 1; i <= 4; i++) {
        toAnswering.push(await seedDelivery(storage, org, { nextAttemptAt: at(i) }, answering));
      }
      const toFull = await seedDelivery(storage, org, { nextAttemptAt: at(1) }, full);
      const [x, y] = [await seedWebhook(storage, other), await seedWebhook(storage, other)];
      const toX = [
        await seedDelivery(storage, other, { nextAttemptAt: at(2) }, x),
        await seedDelivery(storage, other, { nextAttemptAt: at(5) }, x),
      ];
      const toY = [
        await seedDelivery(storage, other, { nextAttemptAt: at(3) }, y),
        await seedDelivery(storage, other, { nextAttemptAt: at(5) }, y),
      ];
      const answeringKey = toAnswering[0]!.destinationKey;
      const sorted = (rows: DeliveryRecord[]) => rows.map((d) => d.id).sort();

      // New destinations one row each, then the answering one up to three: four in all.
      const first = await claimInSteps(storage.deliveries, at(10), 4, "engine-1", LEASE_MS, [
        { limit: 2, excludeDestinations: [answeringKey, toFull.destinationKey], perDestination: 1 },
        { limit: 4, onlyDestinations: [answeringKey], perDestination: 3 },
      ]);
      expect(sorted(first)).toEqual(sorted([toX[0]!, toY[0]!, toAnswering[0]!, toAnswering[1]!]));
      expect(first.every((d) => d.leaseOwner === "engine-1")).toBe(true);
      for (const untouched of [toFull, toX[1]!, toY[1]!, toAnswering[2]!, toAnswering[3]!]) {
        expect(await raw.delivery(untouched.id)).toEqual(untouched);
      }

      // Turns within the first step (the full destination's oldest row goes first), and the
      // second step gets only what the first left of the pass's limit.
      const second = await claimInSteps(storage.deliveries, at(10), 2, "engine-2", LEASE_MS, [
        { limit: 1, excludeDestinations: [answeringKey], perDestination: 1 },
        { limit: 5, onlyDestinations: [answeringKey], perDestination: 3 },
      ]);
      expect(sorted(second)).toEqual(sorted([toFull, toAnswering[2]!]));
    });
  });

  describe("deliveries: a pass's record and claim together", () => {
    it("records every attempt, applies the outcomes still owed, and claims others' rows only", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const hook = await seedWebhook(storage, org);
      const rows: DeliveryRecord[] = [];
      for (let i = 1; i <= 5; i++) {
        rows.push(await seedDelivery(storage, org, { nextAttemptAt: at(i) }, hook));
      }
      const leased = await storage.deliveries.claimDue(at(10), 3, "engine-1", LEASE_MS);
      expect(leased.map((d) => d.id)).toEqual(rows.slice(0, 3).map((d) => d.id));
      // Another engine takes the third row's lease once it has run out.
      const late = at(10 + LEASE_MS / 1000 + 1);
      const taken = await storage.deliveries.claimDue(late, 1, "engine-2", LEASE_MS);
      expect(taken.map((d) => d.id)).toEqual([rows[0]!.id]);
      const attempt = (d: DeliveryRecord, statusCode: number) => ({
        id: d.id,
        attempt: anAttempt({
          deliveryId: d.id,
          organizationId: org.organization.id,
          startedAt: at(11),
          statusCode,
        }),
      });
      const answer = await recordThenClaim(
        storage,
        "engine-1",
        [
          { ...attempt(rows[0]!, 200), next: { status: "delivered" } },
          { ...attempt(rows[1]!, 200), next: { status: "delivered" } },
          { ...attempt(rows[2]!, 500), next: { status: "pending", nextAttemptAt: at(9_000) } },
        ],
        late,
        10,
        LEASE_MS,
        [{ limit: 10 }],
        async (_, claimed) => claimed,
      );
      // The first row's lease was lost: its attempt is logged, its outcome not applied.
      expect(answer.recorded).toEqual([false, true, true]);
      expect(answer.claimed.map((d) => d.id)).toEqual([rows[3]!.id, rows[4]!.id]);
      expect(answer.claimed.every((d) => d.leaseOwner === "engine-1")).toBe(true);
      expect((await raw.delivery(rows[0]!.id))?.leaseOwner).toBe("engine-2");
      expect((await raw.delivery(rows[1]!.id))?.status).toBe("delivered");
      const retried = await raw.delivery(rows[2]!.id);
      expect(retried).toMatchObject({ status: "pending", nextAttemptAt: at(9_000), attempts: 1 });
      expect(retried?.leaseOwner).toBeNull();
      for (const d of rows.slice(0, 3)) {
        expect(await storage.deliveries.listAttempts(org.organization.id, d.id)).toHaveLength(1);
      }
    });
  });

  describe("deliveries: moving a destination's deliveries", () => {
    it("rekeyForSubscription moves the subscription's pending deliveries only", async () => {
      const { storage, raw, org, other } = await twoSeededOrganizations(harness);
      const hook = await seedWebhook(storage, org);
      const pending = await seedDelivery(storage, org, {}, hook);
      const done = await seedDelivery(storage, org, { status: "delivered" }, hook);
      const elsewhere = await seedDelivery(storage, org);
      const key = `${org.organization.id} https://moved.example.com`;
      expect(
        await storage.deliveries.rekeyForSubscription(other.organization.id, hook.id, key),
      ).toBe(0);
      expect(await storage.deliveries.rekeyForSubscription(org.organization.id, hook.id, key)).toBe(
        1,
      );
      expect(await raw.delivery(pending.id)).toEqual({ ...pending, destinationKey: key });
      expect(await raw.delivery(done.id)).toEqual(done);
      expect(await raw.delivery(elsewhere.id)).toEqual(elsewhere);
    });

    it("dueNowForDestination makes the destination's later pending deliveries due now", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const hook = await seedWebhook(storage, org);
      const later = await seedDelivery(storage, org, { nextAttemptAt: at(500), attempts: 3 }, hook);
      const due = await seedDelivery(storage, org, { nextAttemptAt: at(5) }, hook);
      const failed = await seedDelivery(
        storage,
        org,
        { nextAttemptAt: at(900), status: "failed" },
        hook,
      );
      const otherDestination = await seedDelivery(storage, org, { nextAttemptAt: at(600) });
      expect(await storage.deliveries.dueNowForDestination(later.destinationKey, at(10))).toBe(1);
      expect(await raw.delivery(later.id)).toEqual({ ...later, nextAttemptAt: at(10) });
      for (const unchanged of [due, failed, otherDestination]) {
        expect(await raw.delivery(unchanged.id)).toEqual(unchanged);
      }
      expect(await storage.deliveries.dueNowForDestination(later.destinationKey, at(10))).toBe(0);
    });
  });

  describe("webhooks: a failing subscription", () => {
    it("noteAttempt keeps when failing began, and a success clears it; updatedAt stays", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const hook = await seedWebhook(storage, org);
      expect(await storage.webhooks.noteAttempt(hook.id, at(10), false)).toBe(at(10));
      expect(await storage.webhooks.noteAttempt(hook.id, at(20), false)).toBe(at(10));
      expect(await raw.webhook(hook.id)).toEqual({ ...hook, failingSince: at(10) });
      expect(await storage.webhooks.noteAttempt(hook.id, at(30), true)).toBeNull();
      expect(await raw.webhook(hook.id)).toEqual(hook);
      expect(await storage.webhooks.noteAttempt(hook.id, at(40), false)).toBe(at(40));
      expect(await storage.webhooks.noteAttempt("whk_unknown", at(40), false)).toBeNull();
    });

    it("disableFailing turns off only an active subscription failing since then", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const failing = await seedWebhook(storage, org, { failingSince: at(10) });
      const recent = await seedWebhook(storage, org, { failingSince: at(50) });
      const healthy = await seedWebhook(storage, org);
      const off = await seedWebhook(storage, org, { failingSince: at(10), status: "inactive" });

      expect(await storage.webhooks.disableFailing(recent.id, at(20), at(99))).toBeNull();
      expect(await storage.webhooks.disableFailing(healthy.id, at(20), at(99))).toBeNull();
      expect(await storage.webhooks.disableFailing(off.id, at(20), at(99))).toBeNull();
      expect(await storage.webhooks.disableFailing("whk_unknown", at(20), at(99))).toBeNull();
      const disabled = {
        ...failing,
        status: "inactive",
        disabledReason: "failing",
        updatedAt: at(99),
      };
      expect(await storage.webhooks.disableFailing(failing.id, at(10), at(99))).toEqual(disabled);
      expect(await raw.webhook(failing.id)).toEqual(disabled);
      for (const unchanged of [recent, healthy, off]) {
        expect(await raw.webhook(unchanged.id)).toEqual(unchanged);
      }
      // A PATCH-style update clears the reason and the failing time.
      await storage.webhooks.update(org.organization.id, failing.id, {
        status: "active",
        disabledReason: null,
        failingSince: null,
        updatedAt: at(100),
      });
      expect(await raw.webhook(failing.id)).toEqual({
        ...failing,
        failingSince: null,
        updatedAt: at(100),
      });
    });
  });
}
