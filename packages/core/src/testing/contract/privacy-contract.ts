import { describe, expect, it } from "vitest";
import { phoneHash } from "../../inbound/suppression-keys.js";
import type { MessageRecord, Repositories } from "../../ports.js";
import { erasePersonWithin } from "../../privacy/erase-person.js";
import { systemClock } from "../../support/clock.js";
import { createIds } from "../../support/ids.js";
import { readableSecretBox } from "../fakes.js";
import {
  aConsentChange,
  aDelivery,
  anAttempt,
  anIdempotencyRecord,
  aProfile,
  at,
  aUuid,
} from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { type SeededOrganization, seedMessage, seedOrganization, seedWebhook } from "./seed.js";

/** A message of `org`'s profile with a link, an event quoting its number and a webhook delivery. */
async function messageWithTraces(repos: Repositories, org: SeededOrganization) {
  const phone = org.profile.phoneNumber;
  const { message } = await seedMessage(repos, org, {
    body: `Hi Ada, your code is 1234 https://shop.example/t/${phone}`,
    status: "failed",
    error: { code: "rejected", message: `Number ${phone.slice(1)} refused`, provider: "twilio" },
  });
  await repos.messages.insertEvent(
    {
      id: crypto.randomUUID(),
      organizationId: message.organizationId,
      messageId: message.id,
      topic: "message.failed",
      channel: "sms",
      error: { code: "rejected", message: `Number ${phone} refused` },
      createdAt: at(1),
    },
    [],
  );
  await repos.links.insertMany([
    {
      code: `k${message.id.replaceAll("-", "").slice(-11)}`,
      messageId: message.id,
      organizationId: message.organizationId,
      originalUrl: `https://shop.example/t/${phone}`,
      createdAt: message.createdAt,
    },
  ]);
  const webhook = await seedWebhook(repos, org);
  const delivery = aDelivery({
    organizationId: message.organizationId,
    eventId: crypto.randomUUID(),
    messageId: message.id,
    destination: { kind: "subscription", webhookId: webhook.id },
    payload: JSON.stringify({
      data: { recipient: { public_id: org.profile.id, phone_number: phone } },
    }),
  });
  await repos.deliveries.insert(delivery);
  await repos.deliveries.completeAttempts("nobody", [
    {
      id: delivery.id,
      attempt: anAttempt({
        deliveryId: delivery.id,
        organizationId: message.organizationId,
        responseBody: `echo ${phone}`,
      }),
      next: { status: "failed" },
    },
  ]);
  return { message, delivery };
}

/** What erasure and export read and write, and erasure as a whole in one transaction. */
export function privacyContract(harness: () => StorageHarness): void {
  describe("privacy", () => {
    it("finds a person's profiles, active or deleted, by id, number or address, in its organization only", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const other = await seedOrganization(storage);
      const orgId = org.organization.id;
      const gone = await storage.profiles.insert(
        aProfile({ organizationId: orgId, email: "Ada@Example.com" }),
      );
      if (gone === "phone_number_taken") throw new Error("taken");
      await storage.profiles.softDelete(orgId, gone.id, at(5));
      const found = await storage.privacy.findProfiles(orgId, { email: "ada@EXAMPLE.com" });
      expect(found.map((p) => [p.id, p.status])).toEqual([[gone.id, "inactive"]]);
      expect(await storage.privacy.findProfiles(orgId, { profileId: gone.id })).toHaveLength(1);
      expect(
        (await storage.privacy.findProfiles(orgId, { phoneNumber: gone.phoneNumber })).map(
          (p) => p.id,
        ),
      ).toEqual([gone.id]);
      expect(
        await storage.privacy.findProfiles(other.organization.id, { profileId: gone.id }),
      ).toEqual([]);
    });

    it("lists a profile's messages and a number's messages, oldest first, in its organization only", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const other = await seedOrganization(storage);
      const later = await seedMessage(storage, org, { createdAt: at(20) });
      const earlier = await seedMessage(storage, org, { createdAt: at(10) });
      const orgId = org.organization.id;
      const ids = (messages: MessageRecord[]) => messages.map((m) => m.id);
      expect(ids(await storage.privacy.messagesOfProfile(orgId, org.profile.id))).toEqual([
        earlier.message.id,
        later.message.id,
      ]);
      expect(ids(await storage.privacy.messagesToNumber(orgId, org.profile.phoneNumber))).toEqual([
        earlier.message.id,
        later.message.id,
      ]);
      expect(
        await storage.privacy.messagesOfProfile(other.organization.id, org.profile.id),
      ).toEqual([]);
    });

    it("erases a person everywhere in one transaction, and keeps their consent history and everyone else", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const orgId = org.organization.id;
      const neighbour = await seedOrganization(storage);
      await storage.consent.insert(
        aConsentChange({ organizationId: orgId, profileId: org.profile.id }),
      );
      const { message, delivery } = await messageWithTraces(storage, org);
      const kept = await messageWithTraces(storage, neighbour);
      const request = anIdempotencyRecord({
        apiKeyId: org.apiKey.id,
        recoveryPoint: `message:${message.id}`,
      });
      await storage.idempotency.begin(request, at(0));
      const unrelated = anIdempotencyRecord({ apiKeyId: org.apiKey.id });
      await storage.idempotency.begin(unrelated, at(0));

      const view = await storage.transaction((tx) =>
        erasePersonWithin(
          tx,
          { ids: createIds(systemClock), secretBox: readableSecretBox },
          orgId,
          { profileId: org.profile.id },
          at(100),
        ),
      );
      expect(view.profile_ids).toEqual([org.profile.id]);
      expect(view.erased).toEqual({
        profiles: 1,
        messages: 1,
        message_events: 1,
        links: 1,
        webhook_deliveries: 1,
        delivery_attempts: 1,
        idempotency_records: 1,
        inbound_messages: 0,
        suppression_notes: 0,
      });

      const profile = await raw.profile(org.profile.id);
      expect(profile).toMatchObject({
        phoneNumber: "",
        email: null,
        firstName: null,
        lastName: null,
        attributes: {},
        status: "inactive",
        deletedAt: at(100),
      });
      expect(await storage.profiles.get(orgId, org.profile.id)).toBeNull();
      const erasedMessage = await raw.message(message.id);
      expect(erasedMessage).toMatchObject({ phoneNumber: "", body: "", status: "failed" });
      expect(erasedMessage?.error?.message).toBe("Number [erased] refused");
      const events = await raw.events(message.id);
      expect(events.map((e) => e.error?.message ?? null)).toEqual([
        null,
        "Number [erased] refused",
      ]);
      expect(
        (await storage.links.listForMessage(orgId, message.id)).map((l) => l.originalUrl),
      ).toEqual([""]);
      expect(JSON.parse((await raw.delivery(delivery.id))?.payload ?? "")).toEqual({
        data: { recipient: { public_id: org.profile.id, phone_number: null } },
      });
      expect((await raw.attempts(delivery.id)).map((a) => a.responseBody)).toEqual([null]);
      expect(await raw.idempotency(request.apiKeyId, request.endpoint, request.key)).toBeNull();
      expect(
        await raw.idempotency(unrelated.apiKeyId, unrelated.endpoint, unrelated.key),
      ).not.toBeNull();
      expect(await raw.consentChanges(org.profile.id)).toHaveLength(1);

      // The other organization's person is untouched.
      expect((await raw.profile(neighbour.profile.id))?.phoneNumber).toBe(
        neighbour.profile.phoneNumber,
      );
      expect((await raw.message(kept.message.id))?.body).toContain("your code");
      expect((await raw.attempts(kept.delivery.id))[0]?.responseBody).toContain(
        neighbour.profile.phoneNumber,
      );

      // Once erased, there is nothing left to erase.
      const again = await storage.transaction((tx) =>
        erasePersonWithin(
          tx,
          { ids: createIds(systemClock), secretBox: readableSecretBox },
          orgId,
          { profileId: org.profile.id },
          at(200),
        ),
      );
      expect(Object.values(again.erased).every((count) => count === 0)).toBe(true);
      expect((await raw.profile(org.profile.id))?.deletedAt).toBe(at(100));
    });

    it("erasure by number reaches messages to it under another profile; a rolled-back one erases nothing", async () => {
      const { storage, raw } = harness();
      const org = await seedOrganization(storage);
      const orgId = org.organization.id;
      const phone = org.profile.phoneNumber;
      const other = await storage.profiles.insert(aProfile({ organizationId: orgId }));
      if (other === "phone_number_taken") throw new Error("taken");
      const { message } = await seedMessage(
        storage,
        { ...org, profile: other },
        { phoneNumber: phone },
      );
      await expect(
        storage.transaction(async (tx) => {
          await erasePersonWithin(
            tx,
            { ids: createIds(systemClock), secretBox: readableSecretBox },
            orgId,
            { phoneNumber: phone },
            at(100),
          );
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect((await raw.profile(org.profile.id))?.phoneNumber).toBe(phone);
      expect((await raw.message(message.id))?.phoneNumber).toBe(phone);

      const view = await storage.transaction((tx) =>
        erasePersonWithin(
          tx,
          { ids: createIds(systemClock), secretBox: readableSecretBox },
          orgId,
          { phoneNumber: phone },
          at(100),
        ),
      );
      expect(view.profile_ids).toEqual([org.profile.id]);
      expect(view.erased.messages).toBe(1);
      expect((await raw.message(message.id))?.phoneNumber).toBe("");
      expect((await raw.profile(other.id))?.phoneNumber).toBe(other.phoneNumber);
    });

    it("erasure takes the person's inbound messages' number and text and their suppressions' notes, and keeps the suppressions", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const orgId = org.organization.id;
      const neighbour = await seedOrganization(storage);
      const phone = org.profile.phoneNumber;
      const key = Buffer.alloc(32, 7);
      await storage.suppressions.insertKey({
        organizationId: orgId,
        keySealed: readableSecretBox.seal(key.toString("base64")),
        createdAt: at(0),
      });
      const hash = phoneHash(key, phone);
      const suppression = {
        id: aUuid(),
        organizationId: orgId,
        channel: "sms" as const,
        phoneHash: hash,
        source: "inbound" as const,
        keyword: "STOP",
        provider: "twilio",
        note: `asked by ${phone}`,
        consentBefore: true,
        profileId: org.profile.id,
        inboundId: aUuid(),
        createdAt: at(1),
      };
      await storage.suppressions.insert(suppression);
      const theirs = { ...suppression, id: aUuid(), organizationId: neighbour.organization.id };
      await storage.suppressions.insert(theirs);
      const inbound = (organizationId: string, fromNumber: string, text: string) => ({
        id: aUuid(),
        organizationId,
        provider: "twilio",
        providerMessageId: `SM${aUuid()}`,
        channel: "sms" as const,
        fromNumber,
        toSender: "+15005550006",
        text,
        keywordClass: null,
        profileId: null,
        receivedAt: at(2),
      });
      const mine = inbound(orgId, phone, "STOP, this is Ada");
      const stranger = inbound(orgId, "+15005550123", "hello");
      const elsewhere = inbound(neighbour.organization.id, phone, "hi");
      for (const m of [mine, stranger, elsewhere]) await storage.inbound.insert(m);

      const found = await storage.privacy.inboundOfPerson(orgId, [phone], []);
      expect(found.map((m) => m.id)).toEqual([mine.id]);
      expect(await storage.privacy.inboundOfPerson(orgId, [], [])).toEqual([]);

      const erase = () =>
        storage.transaction((tx) =>
          erasePersonWithin(
            tx,
            { ids: createIds(systemClock), secretBox: readableSecretBox },
            orgId,
            { phoneNumber: phone },
            at(100),
          ),
        );
      const view = await erase();
      expect(view.erased.inbound_messages).toBe(1);
      expect(view.erased.suppression_notes).toBe(1);
      const listed = await storage.inbound.list({ organizationId: orgId, limit: 10 });
      expect(listed.find((m) => m.id === mine.id)).toMatchObject({ fromNumber: "", text: "" });
      expect(listed.find((m) => m.id === stranger.id)).toMatchObject({ text: "hello" });
      const [kept] = await storage.suppressions.forNumber(orgId, hash);
      expect(kept).toMatchObject({
        id: suppression.id,
        note: null,
        keyword: "STOP",
        profileId: null,
        inboundId: null,
      });
      const [other] = await storage.suppressions.forNumber(neighbour.organization.id, hash);
      expect(other?.note).toBe(theirs.note);
      expect(other?.profileId).toBe(theirs.profileId);
      const [untouched] = await storage.inbound.list({
        organizationId: neighbour.organization.id,
        limit: 10,
      });
      expect(untouched).toMatchObject({ fromNumber: phone, text: "hi" });

      const again = await erase();
      expect(again.erased.inbound_messages).toBe(0);
      expect(again.erased.suppression_notes).toBe(0);

      // By a number no profile has: its inbound messages are erased all the same.
      const byNumber = await storage.transaction((tx) =>
        erasePersonWithin(
          tx,
          { ids: createIds(systemClock), secretBox: readableSecretBox },
          orgId,
          { phoneNumber: stranger.fromNumber },
          at(100),
        ),
      );
      expect(byNumber.profile_ids).toEqual([]);
      expect(byNumber.erased.inbound_messages).toBe(1);
      const afterStranger = await storage.inbound.list({ organizationId: orgId, limit: 10 });
      expect(afterStranger.find((m) => m.id === stranger.id)).toMatchObject({
        fromNumber: "",
        text: "",
      });
    });

    it("lists deleted profiles not yet erased, the longest deleted first", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const orgId = org.organization.id;
      const made = [];
      for (const deletedAt of [at(30), at(10), at(20)]) {
        const profile = await storage.profiles.insert(aProfile({ organizationId: orgId }));
        if (profile === "phone_number_taken") throw new Error("taken");
        await storage.profiles.softDelete(orgId, profile.id, deletedAt);
        made.push(profile.id);
      }
      await storage.privacy.eraseProfile(orgId, made[1] ?? "", at(40));
      const due = await storage.privacy.deletedNotErased(at(30), 10);
      expect(due.map((p) => p.id)).toEqual([made[2], made[0]]);
      expect(await storage.privacy.deletedNotErased(at(25), 10)).toHaveLength(1);
    });
  });
}
