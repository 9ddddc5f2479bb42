import { describe, expect, it } from "vitest";
import type {
  DeliveryRecord,
  DeliveryStatus,
  MessageCursor,
  MessageRecord,
  Storage,
} from "../../ports.js";
import {
  aConsentChange,
  aDelivery,
  anAttempt,
  anEvent,
  anIdempotencyRecord,
  at,
  aUuid,
  completeOne,
  T0,
} from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { type SeededOrganization, seedMessage, seedOrganization, seedWebhook } from "./seed.js";

const WINDOW = 60_000;

/** A message created at `at(seconds)`, delivered, with one delivery of `status` and an attempt. */
async function oldMessage(
  storage: Storage,
  org: SeededOrganization,
  seconds: number,
  status: DeliveryStatus = "delivered",
) {
  const { message, event } = await seedMessage(storage, org, {
    createdAt: at(seconds),
    updatedAt: at(seconds),
    status: "delivered",
  });
  const webhook = await seedWebhook(storage, org);
  const delivery = aDelivery({
    organizationId: org.organization.id,
    eventId: event.id,
    messageId: message.id,
    destination: { kind: "subscription", webhookId: webhook.id },
    status,
    createdAt: at(seconds),
  });
  await storage.deliveries.insert(delivery);
  await completeOne(storage.deliveries, delivery.id, "nobody", {
    attempt: anAttempt({ organizationId: org.organization.id, deliveryId: delivery.id }),
    next: { status: "failed" },
  });
  return { message, event, delivery };
}

/** Walks every batch from the oldest message; at most `rounds` calls, so a bug cannot hang. */
async function walk(storage: Storage, createdBefore: string, now: string, limit: number) {
  let after: MessageCursor | null = null;
  let deleted = 0;
  for (let round = 0; round < 100; round++) {
    const batch = await storage.retention.deleteOldMessages({ createdBefore, now, after, limit });
    deleted += batch.deleted;
    if (batch.next === null) return { deleted, rounds: round + 1 };
    after = batch.next;
  }
  throw new Error("the walk did not reach the end in 100 batches");
}

/** Retention: old messages with everything of theirs, expired idempotency records, old hits. */
export function retentionContract(harness: () => StorageHarness): void {
  describe("retention.deleteOldMessages", () => {
    it("deletes a message created before the cutoff with its events, deliveries and attempts, and keeps younger ones", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const old = await oldMessage(storage, org, 10);
      const young = await oldMessage(storage, org, 100);
      const result = await storage.retention.deleteOldMessages({
        createdBefore: at(100),
        now: at(1000),
        after: null,
        limit: 50,
      });
      expect(result).toEqual({ deleted: 1, next: null });
      expect(await raw.message(old.message.id)).toBeNull();
      expect(await raw.events(old.message.id)).toEqual([]);
      expect(await raw.delivery(old.delivery.id)).toBeNull();
      expect(await raw.attempts(old.delivery.id)).toEqual([]);
      // Created exactly at the cutoff: not before it, so kept whole.
      expect(await raw.message(young.message.id)).toEqual(young.message);
      expect(await raw.events(young.message.id)).toHaveLength(1);
      expect(await raw.delivery(young.delivery.id)).not.toBeNull();
      expect(await raw.attempts(young.delivery.id)).toHaveLength(1);
      expect(await storage.messages.get(org.organization.id, old.message.id)).toBeNull();
    });

    it("never touches profiles, consent history, campaigns, keys or subscriptions", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const change = aConsentChange({
        organizationId: org.organization.id,
        profileId: org.profile.id,
      });
      await storage.consent.insert(change);
      const { delivery } = await oldMessage(storage, org, 10);
      const webhookId =
        delivery.destination.kind === "subscription" ? delivery.destination.webhookId : "";
      const webhook = await raw.webhook(webhookId);
      await walk(storage, at(1_000_000), at(1_000_000), 10);
      expect(await raw.profile(org.profile.id)).toEqual(org.profile);
      expect(await raw.consentChanges(org.profile.id)).toEqual([change]);
      expect(await raw.campaign(org.campaign.id)).toEqual(org.campaign);
      expect(await raw.apiKey(org.apiKey.id)).toEqual(org.apiKey);
      expect(webhook).not.toBeNull();
      expect(await raw.webhook(webhookId)).toEqual(webhook);
    });

    it("keeps a message while one of its deliveries is pending, and deletes it once none is", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message, delivery } = await oldMessage(storage, org, 10, "pending");
      const query = { createdBefore: at(100), now: at(1000), after: null, limit: 50 };
      expect(await storage.retention.deleteOldMessages(query)).toEqual({ deleted: 0, next: null });
      expect(await raw.message(message.id)).toEqual(message);
      expect(await raw.delivery(delivery.id)).not.toBeNull();
      const [claimed] = await storage.deliveries.claimDue(at(20), 1, "engine", 60_000);
      expect(claimed?.id).toBe(delivery.id);
      await completeOne(storage.deliveries, delivery.id, "engine", {
        attempt: anAttempt({ organizationId: org.organization.id, deliveryId: delivery.id }),
        next: { status: "failed" },
      });
      expect(await storage.retention.deleteOldMessages(query)).toEqual({ deleted: 1, next: null });
      expect(await raw.message(message.id)).toBeNull();
      expect(await raw.delivery(delivery.id)).toBeNull();
      expect(await raw.attempts(delivery.id)).toEqual([]);
    });

    it("keeps a message still sent before its expiry, and deletes a sent one past it", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const open = await seedMessage(storage, org, { createdAt: at(1), expiresAt: at(500) });
      const lapsed = await seedMessage(storage, org, { createdAt: at(2), expiresAt: at(400) });
      const result = await storage.retention.deleteOldMessages({
        createdBefore: at(100),
        now: at(400),
        after: null,
        limit: 50,
      });
      expect(result.deleted).toBe(1);
      expect(await raw.message(open.message.id)).toEqual(open.message);
      expect(await raw.events(open.message.id)).toEqual([open.event]);
      expect(await raw.message(lapsed.message.id)).toBeNull();
    });

    it("never deletes a scheduled or releasing message, however old", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const held = await Promise.all(
        (["scheduled", "releasing"] as const).map((status, i) =>
          seedMessage(storage, org, {
            createdAt: at(1 + i),
            updatedAt: at(1 + i),
            expiresAt: at(3),
            status,
            scheduledFor: at(900),
          }),
        ),
      );
      const result = await storage.retention.deleteOldMessages({
        createdBefore: at(100),
        now: at(400),
        after: null,
        limit: 50,
      });
      expect(result.deleted).toBe(0);
      for (const { message } of held) expect(await raw.message(message.id)).toEqual(message);
    });

    it("deletes the old messages of every organization", async () => {
      const { storage, raw } = harness();
      const a = await oldMessage(storage, await seedOrganization(storage), 10);
      const b = await oldMessage(storage, await seedOrganization(storage), 11);
      expect((await walk(storage, at(100), at(1000), 50)).deleted).toBe(2);
      expect(await raw.message(a.message.id)).toBeNull();
      expect(await raw.message(b.message.id)).toBeNull();
    });

    it("looks at no more than limit messages per call, oldest first, and walks on from next past kept ones", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const kept: MessageRecord[] = [];
      const gone: MessageRecord[] = [];
      for (let i = 0; i < 7; i++) {
        // Every other message has a pending delivery, so it stays.
        const status = i % 2 === 0 ? "pending" : "delivered";
        const made = await oldMessage(storage, org, 10 + i, status);
        (status === "pending" ? kept : gone).push(made.message);
      }
      const first = await storage.retention.deleteOldMessages({
        createdBefore: at(100),
        now: at(1000),
        after: null,
        limit: 3,
      });
      // Looked at the three oldest (pending, delivered, pending): one deleted.
      expect(first).toEqual({ deleted: 1, next: { createdAt: at(12), id: kept[1]?.id } });
      expect(await raw.message(gone[0]?.id ?? "")).toBeNull();
      expect(await raw.message(gone[1]?.id ?? "")).not.toBeNull();
      const rest = await walk(storage, at(100), at(1000), 3);
      expect(rest.deleted).toBe(2);
      for (const message of gone) expect(await raw.message(message.id)).toBeNull();
      for (const message of kept) expect(await raw.message(message.id)).toEqual(message);
      // Looking at exactly `limit` messages cannot tell the end: one more, empty call says so.
      const after = { createdAt: at(16), id: kept[3]?.id ?? "" };
      expect(
        await storage.retention.deleteOldMessages({
          createdBefore: at(100),
          now: at(1000),
          after,
          limit: 3,
        }),
      ).toEqual({ deleted: 0, next: null });
    });

    it("orders messages created at the same time by id", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const a = await oldMessage(storage, org, 10);
      const b = await oldMessage(storage, org, 10);
      const [first, second] = [a.message.id, b.message.id].sort();
      const result = await storage.retention.deleteOldMessages({
        createdBefore: at(100),
        now: at(1000),
        after: null,
        limit: 1,
      });
      expect(result).toEqual({ deleted: 1, next: { createdAt: at(10), id: first } });
      expect(await raw.message(first ?? "")).toBeNull();
      expect(await raw.message(second ?? "")).not.toBeNull();
    });

    it("two sweepers at once delete each message once, and together all of them", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const made = [];
      for (let i = 0; i < 12; i++) made.push(await oldMessage(storage, org, 10 + i));
      const [one, two] = await Promise.all([
        walk(storage, at(100), at(1000), 4),
        walk(storage, at(100), at(1000), 4),
      ]);
      expect((one?.deleted ?? 0) + (two?.deleted ?? 0)).toBe(12);
      for (const { message, delivery } of made) {
        expect(await raw.message(message.id)).toBeNull();
        expect(await raw.delivery(delivery.id)).toBeNull();
      }
    });

    it("a message read while it is deleted: when it is still there after its events were read, they were all read", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const made = [];
      for (let i = 0; i < 10; i++) {
        const { message } = await oldMessage(storage, org, 10 + i);
        await storage.messages.insertEvent(
          anEvent({
            organizationId: org.organization.id,
            messageId: message.id,
            topic: "message.delivered",
            createdAt: at(11 + i),
          }),
          [],
        );
        made.push(message);
      }
      // Deletion is atomic, so reading the message again after its events tells whether the
      // events were read before it (complete) or after it (then the message is gone too).
      const reads = made.map(async (message) => {
        await storage.messages.get(org.organization.id, message.id);
        const events = await storage.messages.listEvents(org.organization.id, message.id);
        const still = await storage.messages.get(org.organization.id, message.id);
        return { still: still !== null, events: events.length };
      });
      const sweep = walk(storage, at(100), at(1000), 3);
      const seen = await Promise.all(reads);
      expect((await sweep).deleted).toBe(10);
      for (const read of seen) if (read.still) expect(read.events).toBe(2);
    });
  });

  describe("retention.deleteExpiredIdempotencyRecords", () => {
    it("deletes expired records no request holds, and keeps live and held ones", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const apiKeyId = org.apiKey.id;
      const completed = anIdempotencyRecord({ apiKeyId, expiresAt: at(100) });
      const live = anIdempotencyRecord({ apiKeyId, expiresAt: at(300) });
      const held = anIdempotencyRecord({ apiKeyId, expiresAt: at(100), lockedUntil: at(500) });
      const abandoned = anIdempotencyRecord({ apiKeyId, expiresAt: at(100), lockedUntil: at(150) });
      for (const record of [completed, live, held, abandoned]) {
        expect((await storage.idempotency.begin(record, at(0))).outcome).toBe("started");
      }
      const response = { status: 200, body: "{}", headers: {} };
      await storage.idempotency.complete(
        apiKeyId,
        completed.endpoint,
        completed.key,
        at(60),
        response,
      );
      await storage.idempotency.complete(apiKeyId, live.endpoint, live.key, at(60), response);
      expect(await storage.retention.deleteExpiredIdempotencyRecords(at(200), 100)).toBe(2);
      const read = (r: typeof completed) => raw.idempotency(apiKeyId, r.endpoint, r.key);
      expect(await read(completed)).toBeNull();
      expect(await read(abandoned)).toBeNull();
      expect(await read(live)).not.toBeNull();
      expect(await read(held)).not.toBeNull();
      // The key answers as a new request.
      expect(
        (await storage.idempotency.begin({ ...completed, requestHash: "other" }, at(200))).outcome,
      ).toBe("started");
    });

    it("deletes at most limit records per call", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const records = [];
      for (let i = 0; i < 5; i++) {
        const record = anIdempotencyRecord({
          apiKeyId: org.apiKey.id,
          expiresAt: at(10),
          lockedUntil: at(5),
        });
        await storage.idempotency.begin(record, at(0));
        records.push(record);
      }
      expect(await storage.retention.deleteExpiredIdempotencyRecords(at(20), 3)).toBe(3);
      expect(await storage.retention.deleteExpiredIdempotencyRecords(at(20), 3)).toBe(2);
      expect(await storage.retention.deleteExpiredIdempotencyRecords(at(20), 3)).toBe(0);
      for (const r of records)
        expect(await raw.idempotency(r.apiKeyId, r.endpoint, r.key)).toBeNull();
    });
  });

  describe("retention.deleteOldEventDeliveries", () => {
    it("deletes old deliveries of events about no message with their attempts, never pending or young ones or a message's", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const webhook = await seedWebhook(storage, org);
      /** A delivery of `topic` (about no message) created at `at(seconds)`, with an attempt. */
      const eventDelivery = async (
        topic: DeliveryRecord["topic"],
        seconds: number,
        status: DeliveryStatus,
      ) => {
        const delivery = aDelivery({
          organizationId: org.organization.id,
          eventId: aUuid(),
          topic,
          destination: { kind: "subscription", webhookId: webhook.id },
          status,
          createdAt: at(seconds),
        });
        await storage.deliveries.insert(delivery);
        await completeOne(storage.deliveries, delivery.id, "nobody", {
          attempt: anAttempt({ organizationId: org.organization.id, deliveryId: delivery.id }),
          next: { status: "failed" },
        });
        return delivery;
      };
      const consent = await eventDelivery("profile.consent_changed", 10, "failed");
      const received = await eventDelivery("message.received", 20, "delivered");
      const waiting = await eventDelivery("profile.erased", 30, "pending");
      const young = await eventDelivery("message.received", 100, "delivered");
      const ofMessage = await oldMessage(storage, org, 5);
      expect(await raw.attempts(consent.id)).toHaveLength(1);

      // At most `limit` per call, oldest first.
      expect(await storage.retention.deleteOldEventDeliveries(at(100), 1)).toBe(1);
      expect(await raw.delivery(consent.id)).toBeNull();
      expect(await raw.attempts(consent.id)).toEqual([]);
      expect(await raw.delivery(received.id)).not.toBeNull();
      expect(await storage.retention.deleteOldEventDeliveries(at(100), 10)).toBe(1);
      expect(await storage.retention.deleteOldEventDeliveries(at(100), 10)).toBe(0);
      expect(await raw.delivery(received.id)).toBeNull();
      expect(await raw.attempts(received.id)).toEqual([]);
      // Pending (still to be sent), created at the cutoff, or a message's: kept.
      expect(await raw.delivery(waiting.id)).not.toBeNull();
      expect(await raw.delivery(young.id)).not.toBeNull();
      expect(await raw.attempts(young.id)).toHaveLength(1);
      expect(await raw.delivery(ofMessage.delivery.id)).not.toBeNull();
      expect(await raw.message(ofMessage.message.id)).toEqual(ofMessage.message);
    });
  });

  describe("retention.deleteRateLimitHitsBefore", () => {
    it("deletes hits at or before the time, of every key, at most limit per call; later hits still count", async () => {
      const { storage } = harness();
      for (const key of ["key_a", "key_b"]) {
        for (let i = 0; i < 3; i++) await storage.rateLimits.hit(key, T0 + i * 1000, WINDOW, 10);
      }
      // key_a at T0, T0+1s, T0+2s; key_b the same: four at or before T0+1s.
      expect(await storage.retention.deleteRateLimitHitsBefore(T0 + 1000, 3)).toBe(3);
      expect(await storage.retention.deleteRateLimitHitsBefore(T0 + 1000, 3)).toBe(1);
      expect(await storage.retention.deleteRateLimitHitsBefore(T0 + 1000, 3)).toBe(0);
      // A window reaching back past every hit counts only the one left per key (plus this one).
      for (const key of ["key_a", "key_b"]) {
        const decision = await storage.rateLimits.hit(key, T0 + 3000, 10 * WINDOW, 10);
        expect(decision.remaining).toBe(10 - 2);
      }
    });
  });

  describe("retention.reclaimSpace", () => {
    it("answers how many pages it gave back, never a negative number", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      for (let i = 0; i < 20; i++) await oldMessage(storage, org, i);
      await walk(storage, at(1000), at(1000), 50);
      const pages = await storage.retention.reclaimSpace();
      expect(pages).toBeGreaterThanOrEqual(0);
      expect(Number.isInteger(pages)).toBe(true);
    });
  });
}
