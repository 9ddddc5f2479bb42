import { describe, expect, it } from "vitest";
import type { MessageStatus } from "../../ports.js";
import { aDelivery, anEvent, at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { seedDelivery, seedMessage, seedOrganization, twoSeededOrganizations } from "./seed.js";

/** A change of a message to `status`, sent by SMS without error, at `at(seconds)`. */
const bySms = (status: MessageStatus, seconds: number) => ({
  status,
  channel: "sms" as const,
  error: null,
  updatedAt: at(seconds),
});

const refused = { code: "rejected", message: "The upstream refused the message" };

/** Messages: reads, the lifecycle's compare-and-set and advance, expiry and events. */
export function messagesContract(harness: () => StorageHarness): void {
  describe("messages", () => {
    it("insert stores a message; get reads it only in its organization, getById by id alone", async () => {
      const { storage, raw, org, other } = await twoSeededOrganizations(harness);
      const { message } = await seedMessage(storage, org, {
        clientReference: "order-42",
        webhookUrl: "https://example.com/hook",
        channel: "viber",
        smsFallbackAllowed: true,
      });
      expect(await raw.message(message.id)).toEqual(message);
      expect(await storage.messages.get(org.organization.id, message.id)).toEqual(message);
      expect(await storage.messages.get(other.organization.id, message.id)).toBeNull();
      expect(await storage.messages.getById(message.id)).toEqual(message);
      const unknown = "01890000-0000-7000-8000-000000000000";
      expect(await storage.messages.get(org.organization.id, unknown)).toBeNull();
      expect(await storage.messages.getById(unknown)).toBeNull();
    });

    it("recordLeg writes one leg's provider and id, leaving the rest; false for an unknown id", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org, {
        channel: "viber",
        viberProvider: "infobip",
        smsProvider: null,
      });
      expect(await raw.message(message.id)).toEqual(message);
      const viber = { provider: "infobip", providerMessageId: message.id };
      expect(await storage.messages.recordLeg(message.id, "viber", viber)).toBe(true);
      const sms = { provider: "twilio", providerMessageId: "SM0123456789abcdef0123456789abcdef" };
      expect(await storage.messages.recordLeg(message.id, "sms", sms)).toBe(true);
      expect(await raw.message(message.id)).toEqual({
        ...message,
        viberProviderMessageId: message.id,
        smsProvider: "twilio",
        smsProviderMessageId: sms.providerMessageId,
      });
      const unknown = "01890000-0000-7000-8000-000000000000";
      expect(await storage.messages.recordLeg(unknown, "sms", sms)).toBe(false);
    });

    it("recordLeg keeps a leg's notes (the failover before it, a clamped TTL) and clears them", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org, { channel: "viber" });
      const notes = {
        triedBefore: [
          { provider: "twilio", outcome: "unreachable" as const },
          { provider: "telnyx", outcome: "unavailable" as const },
        ],
        clampedTtlSeconds: 259_200,
      };
      const leg = { provider: "vonage", providerMessageId: "uuid-1", notes };
      expect(await storage.messages.recordLeg(message.id, "viber", leg)).toBe(true);
      expect(await raw.message(message.id)).toEqual({
        ...message,
        viberProvider: "vonage",
        viberProviderMessageId: "uuid-1",
        viberLegNotes: notes,
      });
      const sms = { provider: "twilio", providerMessageId: "SM1" };
      expect(await storage.messages.recordLeg(message.id, "sms", sms)).toBe(true);
      expect(await storage.messages.getById(message.id)).toMatchObject({
        viberLegNotes: notes,
        smsLegNotes: null,
      });
      await storage.messages.recordLeg(message.id, "viber", { ...leg, notes: null });
      expect((await raw.message(message.id))?.viberLegNotes).toBeNull();
    });

    it("scheduleFallback moves a sent Viber message to SMS with its job due, once", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org, {
        channel: "viber",
        smsFallbackAllowed: true,
      });
      const scheduled = await storage.messages.scheduleFallback(message.id, at(5), at(5));
      const expected = { ...message, channel: "sms", fallbackDueAt: at(5), updatedAt: at(5) };
      expect(scheduled).toEqual(expected);
      expect(await raw.message(message.id)).toEqual(expected);
      // Already on SMS with a job pending: nothing more is written.
      expect(await storage.messages.scheduleFallback(message.id, at(9), at(9))).toBeNull();
      const { message: delivered } = await seedMessage(storage, org, {
        channel: "viber",
        status: "delivered",
      });
      expect(await storage.messages.scheduleFallback(delivered.id, at(5), at(5))).toBeNull();
      const unknown = "01890000-0000-7000-8000-000000000000";
      expect(await storage.messages.scheduleFallback(unknown, at(5), at(5))).toBeNull();
    });

    it("listFallbacksDue answers the due jobs, longest due first; moveFallback is a compare-and-set", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const seeded = [];
      for (const due of [7, 3, 20]) {
        const { message } = await seedMessage(storage, org, { channel: "viber" });
        await storage.messages.scheduleFallback(message.id, at(due), at(1));
        seeded.push(message.id);
      }
      await seedMessage(storage, org, { channel: "viber" });
      expect(await storage.messages.listFallbacksDue(at(10), 10)).toEqual([seeded[1], seeded[0]]);
      expect(await storage.messages.listFallbacksDue(at(10), 1)).toEqual([seeded[1]]);
      const id = seeded[1]!;
      expect(await storage.messages.moveFallback(id, at(4), at(60))).toBe(false);
      expect(await storage.messages.moveFallback(id, at(3), at(60))).toBe(true);
      expect(await storage.messages.moveFallback(id, at(3), null)).toBe(false);
      expect(await storage.messages.listFallbacksDue(at(10), 10)).toEqual([seeded[0]]);
      expect(await storage.messages.moveFallback(id, at(60), null)).toBe(true);
      expect((await raw.message(id))?.fallbackDueAt).toBeNull();
    });

    it("an error keeps the provider and the provider's code it was stored with", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const error = {
        code: "upstream_rejected",
        message: "The number is not valid.",
        provider: "twilio",
        provider_code: "21211",
      };
      const changes = { status: "failed" as const, error, updatedAt: at(3) };
      expect(await storage.messages.advance(message.id, ["sent"], changes)).toEqual({
        ...message,
        ...changes,
      });
      expect((await raw.message(message.id))?.error).toEqual(error);
    });

    it("transition writes the changes while the status is still the expected one", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org, { channel: "viber" });
      const changes = {
        status: "failed" as const,
        channel: "sms" as const,
        error: { code: "undeliverable", message: "No route" },
        updatedAt: at(30),
      };
      expect(await storage.messages.transition(message.id, "sent", changes)).toBe(true);
      expect(await raw.message(message.id)).toEqual({ ...message, ...changes });
    });

    it("transition is false and writes nothing when another writer moved the status first", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const delivered = bySms("delivered", 5);
      expect(await storage.messages.transition(message.id, "sent", delivered)).toBe(true);
      const expired = bySms("expired", 9);
      expect(await storage.messages.transition(message.id, "sent", expired)).toBe(false);
      expect(await raw.message(message.id)).toEqual({ ...message, ...delivered });
      const unknown = "01890000-0000-7000-8000-000000000000";
      expect(await storage.messages.transition(unknown, "sent", expired)).toBe(false);
    });

    it("concurrent transitions from the same status: exactly one wins", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          storage.messages.transition(message.id, "sent", bySms("delivered", 10 + i)),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await raw.message(message.id))?.updatedAt).toBe(at(10 + winner));
    });

    it("advance writes the move from a status in `from` and answers the record as written", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org, { status: "delivered" });
      const seen = await storage.messages.advance(message.id, ["sent", "delivered"], {
        status: "seen",
        updatedAt: at(30),
      });
      const expected = { ...message, status: "seen", updatedAt: at(30) };
      expect(seen).toEqual(expected);
      expect(await raw.message(message.id)).toEqual(expected);
    });

    it("advance writes nothing and answers null from a status not in `from`, for an unknown id, or with no `from`", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org, { status: "delivered" });
      const failed = { status: "failed" as const, error: refused, updatedAt: at(30) };
      expect(await storage.messages.advance(message.id, ["sent"], failed)).toBeNull();
      expect(await storage.messages.advance(message.id, [], failed)).toBeNull();
      expect(await raw.message(message.id)).toEqual(message);
      const unknown = "01890000-0000-7000-8000-000000000000";
      expect(await storage.messages.advance(unknown, ["sent", "delivered"], failed)).toBeNull();
    });

    it("advance keeps the stored error unless given one, and a given null clears it", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      // The storage holds no lifecycle rule: any status may carry an error here.
      const { message } = await seedMessage(storage, org, { error: refused });
      const delivered = { status: "delivered" as const, updatedAt: at(10) };
      expect((await storage.messages.advance(message.id, ["sent"], delivered))?.error).toEqual(
        refused,
      );
      const blocked = { code: "blocked", message: "User blocked" };
      const failed = { status: "failed" as const, error: blocked, updatedAt: at(20) };
      expect(await storage.messages.advance(message.id, ["delivered"], failed)).toEqual({
        ...message,
        ...failed,
      });
      const cleared = { status: "expired" as const, error: null, updatedAt: at(30) };
      expect((await storage.messages.advance(message.id, ["failed"], cleared))?.error).toBeNull();
      expect(await raw.message(message.id)).toEqual({ ...message, ...cleared });
    });

    it("advance goes by id alone, like getById: another organization's message moves too", async () => {
      const { storage, other } = await twoSeededOrganizations(harness);
      const { message } = await seedMessage(storage, other);
      const delivered = { status: "delivered" as const, updatedAt: at(10) };
      expect((await storage.messages.advance(message.id, ["sent"], delivered))?.status).toBe(
        "delivered",
      );
    });

    it("concurrent transactions advancing one message from the same status: exactly one writes", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          storage.transaction((tx) =>
            tx.messages.advance(message.id, ["sent"], {
              status: "delivered",
              updatedAt: at(10 + i),
            }),
          ),
        ),
      );
      const written = results.filter((r) => r !== null);
      expect(written).toHaveLength(1);
      expect(await raw.message(message.id)).toEqual(written[0]);
    });

    it("listExpired lists only sent messages due at or before now, oldest first, at most limit, in every organization", async () => {
      const { storage } = harness();
      const orgA = await seedOrganization(storage);
      const orgB = await seedOrganization(storage);
      const a = (await seedMessage(storage, orgA, { createdAt: at(0), expiresAt: at(100) }))
        .message;
      const b = (await seedMessage(storage, orgB, { createdAt: at(1), expiresAt: at(200) }))
        .message;
      const c = (await seedMessage(storage, orgA, { createdAt: at(2), expiresAt: at(300) }))
        .message;
      await seedMessage(storage, orgA, { createdAt: at(3), expiresAt: at(301) });
      const done = (await seedMessage(storage, orgA, { createdAt: at(0.5), expiresAt: at(150) }))
        .message;
      await storage.messages.transition(done.id, "sent", bySms("delivered", 50));
      expect(await storage.messages.listExpired(at(300), 10)).toEqual([a.id, b.id, c.id]);
      expect(await storage.messages.listExpired(at(300), 2)).toEqual([a.id, b.id]);
      expect(await storage.messages.listExpired(at(99.999), 10)).toEqual([]);
    });

    it("insertEvent stores the event and every one of its deliveries, as given", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      const event = anEvent({
        organizationId: org.organization.id,
        messageId: message.id,
        topic: "message.delivered",
        createdAt: at(10),
      });
      const owed = {
        organizationId: org.organization.id,
        eventId: event.id,
        messageId: message.id,
      };
      const deliveries = [
        aDelivery({ ...owed, destination: { kind: "subscription", webhookId: "whk_a" } }),
        aDelivery({
          ...owed,
          destination: { kind: "message", url: "https://example.com/hook", apiKeyId: "key_a" },
          createdAt: at(1),
        }),
      ];
      await storage.messages.insertEvent(event, deliveries);
      expect((await raw.events(message.id)).at(-1)).toEqual(event);
      expect(await raw.deliveries()).toEqual(deliveries);
      expect(await storage.deliveries.listForMessage(org.organization.id, message.id)).toEqual(
        deliveries,
      );
    });

    it("insertEvent stores nothing, not even the event, when one of its deliveries is refused", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const stored = await seedDelivery(storage, org);
      const { message, event: sent } = await seedMessage(storage, org);
      const event = anEvent({ organizationId: org.organization.id, messageId: message.id });
      const owed = {
        organizationId: org.organization.id,
        eventId: event.id,
        messageId: message.id,
      };
      const destination = { kind: "subscription", webhookId: "whk_a" } as const;
      const fresh = aDelivery({ ...owed, destination });
      const taken = aDelivery({ ...owed, destination, id: stored.id });
      await expect(storage.messages.insertEvent(event, [fresh, taken])).rejects.toThrow();
      expect(await raw.events(message.id)).toEqual([sent]);
      expect(await raw.deliveries()).toEqual([stored]);
      // A refused call leaves the storage usable: the same event stores with its fresh delivery.
      await storage.messages.insertEvent(event, [fresh]);
      expect(await raw.events(message.id)).toEqual([sent, event]);
    });

    it("listEvents returns a message's events in the order they happened, in its organization only", async () => {
      const { storage, raw, org, other } = await twoSeededOrganizations(harness);
      const { message, event: sent } = await seedMessage(storage, org, { createdAt: at(0) });
      await seedMessage(storage, org);
      const base = { organizationId: org.organization.id, messageId: message.id };
      const seen = anEvent({ ...base, topic: "message.seen", createdAt: at(20) });
      const delivered = anEvent({ ...base, topic: "message.delivered", createdAt: at(10) });
      const failed = anEvent({
        ...base,
        topic: "message.failed",
        channel: "viber",
        error: { code: "blocked", message: "User blocked" },
        createdAt: at(30),
      });
      await storage.messages.insertEvent(seen, []);
      await storage.messages.insertEvent(delivered, []);
      await storage.messages.insertEvent(failed, []);
      const expected = [sent, delivered, seen, failed];
      expect(await storage.messages.listEvents(org.organization.id, message.id)).toEqual(expected);
      expect(await storage.messages.listEvents(other.organization.id, message.id)).toEqual([]);
      expect(await raw.events(message.id)).toEqual(expected);
    });
  });
}
