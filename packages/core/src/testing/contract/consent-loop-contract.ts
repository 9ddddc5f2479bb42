import { describe, expect, it } from "vitest";
import type {
  Channel,
  InboundMessageRecord,
  SenderAssignmentRecord,
  SuppressionRecord,
} from "../../ports.js";
import { aConsentChange, at, aUuid } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { anOrganizationIn, seedMessage, seedOrganization } from "./seed.js";

const aSuppression = (
  organizationId: string,
  overrides: Partial<SuppressionRecord> = {},
): SuppressionRecord => ({
  id: aUuid(),
  organizationId,
  channel: "sms",
  phoneHash: `h${aUuid()}`,
  source: "inbound",
  keyword: "STOP",
  provider: "twilio",
  note: null,
  consentBefore: true,
  profileId: null,
  inboundId: null,
  createdAt: at(0),
  ...overrides,
});

const anInbound = (
  organizationId: string,
  overrides: Partial<InboundMessageRecord> = {},
): InboundMessageRecord => ({
  id: aUuid(),
  organizationId,
  provider: "twilio",
  providerMessageId: `SM${aUuid()}`,
  channel: "sms",
  fromNumber: "+4915112345678",
  toSender: "+15005550006",
  text: "STOP",
  keywordClass: "opt_out",
  profileId: null,
  receivedAt: at(0),
  ...overrides,
});

const anAssignment = (
  organizationId: string,
  channel: Channel,
  sender: string,
): SenderAssignmentRecord => ({ organizationId, channel, sender, createdAt: at(0) });

/** Suppressions, inbound messages and sender assignments: the storage of the consent loop. */
export function consentLoopContract(harness: () => StorageHarness): void {
  describe("consent loop", () => {
    it("a suppression key is stored once per organization; the first one stays", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      expect(await storage.suppressions.key(org)).toBeNull();
      const first = { organizationId: org, keySealed: "sealed-1", createdAt: at(0) };
      expect(await storage.suppressions.insertKey(first)).toBe("sealed-1");
      expect(await storage.suppressions.insertKey({ ...first, keySealed: "sealed-2" })).toBe(
        "sealed-1",
      );
      expect(await storage.suppressions.key(org)).toBe("sealed-1");
      const keys = await storage.suppressions.listKeys();
      expect(keys.filter((k) => k.organizationId === org)).toEqual([first]);
    });

    it("suppressions are unique per organization, channel and hash, and scoped", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const other = await anOrganizationIn(storage);
      const sms = aSuppression(org, { phoneHash: "hash-a" });
      expect(await storage.suppressions.insert(sms)).toBe(true);
      expect(await storage.suppressions.insert(aSuppression(org, { phoneHash: "hash-a" }))).toBe(
        false,
      );
      const viber = aSuppression(org, {
        phoneHash: "hash-a",
        channel: "viber",
        source: "api",
        keyword: null,
        provider: null,
        note: "asked by phone",
        consentBefore: null,
        profileId: "prf_whoever",
        inboundId: aUuid(),
      });
      expect(await storage.suppressions.insert(viber)).toBe(true);
      expect(await storage.suppressions.insert(aSuppression(other, { phoneHash: "hash-a" }))).toBe(
        true,
      );
      const found = await storage.suppressions.forNumber(org, "hash-a");
      expect(found.sort((a, b) => a.channel.localeCompare(b.channel))).toEqual([sms, viber]);
      expect(await storage.suppressions.forNumber(org, "hash-b")).toEqual([]);
      const several = await storage.suppressions.forNumbers(org, ["hash-a", "hash-b", "hash-c"]);
      expect(several.sort((a, b) => a.channel.localeCompare(b.channel))).toEqual([sms, viber]);
      expect(await storage.suppressions.forNumbers(org, [])).toEqual([]);
      expect(await storage.suppressions.forNumbers(other, ["hash-b"])).toEqual([]);
      const page = await storage.suppressions.list({ organizationId: org, limit: 10 });
      expect(page).toEqual([viber, sms]);
      expect(
        await storage.suppressions.list({ organizationId: org, channel: "sms", limit: 10 }),
      ).toEqual([sms]);
      expect(
        await storage.suppressions.list({ organizationId: org, beforeId: viber.id, limit: 10 }),
      ).toEqual([sms]);
      expect(await storage.suppressions.delete(other, "viber", "hash-a")).toBeNull();
      expect(await storage.suppressions.delete(org, "sms", "hash-a")).toEqual(sms);
      expect(await storage.suppressions.forNumber(org, "hash-a")).toEqual([viber]);
    });

    it("a suppression names the profile and inbound message that know its number; linked again, scoped", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const other = await anOrganizationIn(storage);
      const message = anInbound(org);
      const elsewhere = anInbound(other);
      for (const m of [message, elsewhere]) expect(await storage.inbound.insert(m)).toBe(true);
      const linked = aSuppression(org, { profileId: "prf_first", inboundId: message.id });
      const bare = aSuppression(org, { phoneHash: "hash-bare" });
      const theirs = aSuppression(other, { phoneHash: "hash-bare" });
      for (const x of [linked, bare, theirs]) await storage.suppressions.insert(x);
      expect(await storage.suppressions.forNumber(org, linked.phoneHash)).toEqual([linked]);

      expect(await storage.suppressions.linkProfile(org, [bare.id, theirs.id], "prf_later")).toBe(
        1,
      );
      expect(await storage.suppressions.linkProfile(org, [], "prf_none")).toBe(0);
      expect(await storage.suppressions.forNumber(org, "hash-bare")).toEqual([
        { ...bare, profileId: "prf_later" },
      ]);
      expect(await storage.suppressions.forNumber(other, "hash-bare")).toEqual([theirs]);

      const found = await storage.inbound.getMany(org, [message.id, elsewhere.id, aUuid()]);
      expect(found).toEqual([message]);
      expect(await storage.inbound.getMany(org, [])).toEqual([]);
    });

    it("a send's recipient by number is read with its suppressions, with or without a profile", async () => {
      const { storage } = harness();
      const a = await seedOrganization(storage);
      const org = a.organization.id;
      const other = await anOrganizationIn(storage);
      const phone = a.profile.phoneNumber;
      const profile = await storage.profiles.findByPhone(org, phone);
      expect(profile).not.toBeNull();
      const recipient = async (organizationId: string, number: string, hash: string) => {
        const found = await storage.profiles.findRecipient(organizationId, number, hash);
        return { ...found, suppressed: [...found.suppressed].sort() };
      };
      expect(await recipient(org, phone, "hash-r")).toEqual({ profile, suppressed: [] });
      await storage.suppressions.insert(aSuppression(org, { phoneHash: "hash-r" }));
      await storage.suppressions.insert(
        aSuppression(org, { phoneHash: "hash-r", channel: "viber" }),
      );
      await storage.suppressions.insert(aSuppression(other, { phoneHash: "hash-o" }));
      expect(await recipient(org, phone, "hash-r")).toEqual({
        profile,
        suppressed: ["sms", "viber"],
      });
      expect(await recipient(org, "+4915199999999", "hash-r")).toEqual({
        profile: null,
        suppressed: ["sms", "viber"],
      });
      expect(await recipient(other, phone, "hash-r")).toEqual({ profile: null, suppressed: [] });
      expect(await recipient(other, phone, "hash-o")).toEqual({
        profile: null,
        suppressed: ["sms"],
      });
    });

    it("an inbound message is stored once per provider message id and organization", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const other = await anOrganizationIn(storage);
      const first = anInbound(org, { providerMessageId: "SM1" });
      expect(await storage.inbound.insert(first)).toBe(true);
      expect(await storage.inbound.insert(anInbound(org, { providerMessageId: "SM1" }))).toBe(
        false,
      );
      expect(
        await storage.inbound.insert(
          anInbound(org, { providerMessageId: "SM1", provider: "vonage" }),
        ),
      ).toBe(true);
      expect(await storage.inbound.insert(anInbound(other, { providerMessageId: "SM1" }))).toBe(
        true,
      );
      const later = anInbound(org, {
        fromNumber: "+4915199999999",
        keywordClass: null,
        text: "hello",
        channel: "viber",
        profileId: "prf_x",
      });
      await storage.inbound.insert(later);
      const page = await storage.inbound.list({ organizationId: org, limit: 10 });
      expect(page).toHaveLength(3);
      expect(page[0]).toEqual(later);
      expect(
        await storage.inbound.list({
          organizationId: org,
          fromNumber: "+4915199999999",
          limit: 10,
        }),
      ).toEqual([later]);
      expect(
        (await storage.inbound.list({ organizationId: org, channel: "sms", limit: 1 })).length,
      ).toBe(1);
    });

    it("retention deletes inbound messages received before the cutoff, in batches", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      for (const seconds of [0, 1, 2]) {
        await storage.inbound.insert(anInbound(org, { receivedAt: at(seconds) }));
      }
      const kept = anInbound(org, { receivedAt: at(100) });
      await storage.inbound.insert(kept);
      expect(await storage.inbound.deleteReceivedBefore(at(50), 2)).toBe(2);
      expect(await storage.inbound.deleteReceivedBefore(at(50), 2)).toBe(1);
      expect(await storage.inbound.deleteReceivedBefore(at(50), 2)).toBe(0);
      expect(await storage.inbound.list({ organizationId: org, limit: 10 })).toEqual([kept]);
    });

    it("the owners of a sender are the organizations that sent from it to the number", async () => {
      const { storage } = harness();
      const a = await seedOrganization(storage);
      const b = await seedOrganization(storage);
      await seedMessage(storage, a, { sender: "+15005550006", createdAt: at(10) });
      await seedMessage(storage, b, { sender: "+15005550006", createdAt: at(1) });
      const phone = a.profile.phoneNumber;
      expect(await storage.inbound.messageOwners(phone, "+15005550006", at(0))).toEqual([
        a.organization.id,
      ]);
      expect(await storage.inbound.messageOwners(phone, "+15005550006", at(20))).toEqual([]);
      expect(await storage.inbound.messageOwners(phone, "Other", at(0))).toEqual([]);
      const bPhone = b.profile.phoneNumber;
      expect(await storage.inbound.messageOwners(bPhone, "+15005550006", at(0))).toEqual([
        b.organization.id,
      ]);
    });

    it("a leg's actual sender, as the provider reported it, owns replies to that sender", async () => {
      const { storage } = harness();
      const a = await seedOrganization(storage);
      const { message } = await seedMessage(storage, a, {
        sender: "+15005550006",
        createdAt: at(10),
      });
      const phone = a.profile.phoneNumber;
      expect(await storage.inbound.messageOwners(phone, "+15005550099", at(0))).toEqual([]);
      expect(await storage.messages.recordSentFrom(message.id, "+15005550099")).toBe(true);
      expect(await storage.messages.recordSentFrom(message.id, "+15005550099")).toBe(false);
      expect((await storage.messages.getById(message.id))?.smsSentFrom).toBe("+15005550099");
      expect(await storage.inbound.messageOwners(phone, "+15005550099", at(0))).toEqual([
        a.organization.id,
      ]);
      // The message's own sender still owns replies to it.
      expect(await storage.inbound.messageOwners(phone, "+15005550006", at(0))).toEqual([
        a.organization.id,
      ]);
      expect(await storage.messages.recordSentFrom(aUuid(), "+15005550099")).toBe(false);
    });

    it("sender assignments: assigned once, listed, their owners found, unassigned", async () => {
      const { storage } = harness();
      const a = await anOrganizationIn(storage);
      const b = await anOrganizationIn(storage);
      expect(await storage.senders.assign(anAssignment(a, "sms", "36111"))).toBe(true);
      expect(await storage.senders.assign(anAssignment(a, "sms", "36111"))).toBe(false);
      expect(await storage.senders.assign(anAssignment(b, "viber", "Shop"))).toBe(true);
      expect(await storage.senders.owners("sms", "36111")).toEqual([a]);
      expect(await storage.senders.owners("viber", "36111")).toEqual([]);
      expect(await storage.senders.list(a)).toEqual([anAssignment(a, "sms", "36111")]);
      const all = await storage.senders.list();
      expect(all.filter((x) => x.organizationId === a || x.organizationId === b)).toHaveLength(2);
      expect(await storage.senders.unassign(a, "sms", "36111")).toBe(true);
      expect(await storage.senders.unassign(a, "sms", "36111")).toBe(false);
      expect(await storage.senders.owners("sms", "36111")).toEqual([]);
    });

    it("the consent history keeps each change's source", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const change = aConsentChange({
        organizationId: org.organization.id,
        profileId: org.profile.id,
        source: "inbound",
        oldValue: true,
        newValue: false,
      });
      await storage.consent.insert(change);
      expect(await storage.consent.listForProfile(org.organization.id, org.profile.id)).toEqual([
        change,
      ]);
    });

    it("a suppression written in a rolled-back transaction is not stored", async () => {
      const { storage } = harness();
      const org = await anOrganizationIn(storage);
      const suppression = aSuppression(org);
      await expect(
        storage.transaction(async (tx) => {
          await tx.suppressions.insert(suppression);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await storage.suppressions.forNumber(org, suppression.phoneHash)).toEqual([]);
    });
  });
}
