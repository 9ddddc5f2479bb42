import { describe, expect, it } from "vitest";
import { deleteProfile } from "../profiles/delete-profile.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";

const PHONE = "+14155552671";
const OTHER_PHONE = "+14155552672";

const toEmail = (campaignId: string, email: string) => ({
  ...sendBody(campaignId, PHONE),
  recipient: { type: "email", value: email },
});
const toPublicId = (campaignId: string, publicId: string) => ({
  ...sendBody(campaignId, PHONE),
  recipient: { type: "public_id", value: publicId },
});

describe("recipient resolution (docs/api.md Messages, Recipients)", () => {
  for (const category of ["otp", "transactional"] as const) {
    it(`${category}: a phone number without a profile gets one, created with the message`, async () => {
      const w = await sendWorld();
      const template = category === "otp" ? "{{pin}} {{name}} {{order}}" : undefined;
      const campaign = await w.campaign({ category, ...(template ? { template } : {}) });
      const params = { pin: "1234", name: "Ada", order: "1" };
      const body = sendBody(campaign.campaign_id, "+1 (415) 555-2671", {
        params: category === "otp" ? params : { name: "Ada", order: "1" },
      });
      const { message_id } = (await w.send(body))._unsafeUnwrap();
      const profile = await w.storage.profiles.findByPhone(w.actor.organizationId, PHONE);
      expect(profile).toMatchObject({
        phoneNumber: PHONE,
        source: "api",
        viberMarketingConsent: false,
        smsMarketingConsent: false,
      });
      expect((await w.storage.raw.message(message_id))?.profileId).toBe(profile?.id);
      // A second send reuses the profile.
      const again = (await w.send(body))._unsafeUnwrap();
      expect((await w.storage.raw.message(again.message_id))?.profileId).toBe(profile?.id);
    });
  }

  it("an existing profile is found by phone number, email (any case, trimmed) or public_id", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const profile = await w.profile({ phone_number: PHONE, email: "Ada@Example.com" });
    for (const body of [
      sendBody(campaign_id, PHONE),
      toEmail(campaign_id, "ada@example.COM"),
      toEmail(campaign_id, " ada@example.com\t"),
      toPublicId(campaign_id, profile.public_id),
      toPublicId(campaign_id, ` ${profile.public_id} `),
    ]) {
      const { message_id } = (await w.send(body))._unsafeUnwrap();
      expect((await w.storage.raw.message(message_id))?.profileId).toBe(profile.public_id);
    }
  });

  it("an email or public_id with no active profile is 404 in every category", async () => {
    const w = await sendWorld();
    const campaigns = [
      await w.campaign(),
      await w.campaign({ category: "otp", template: "{{pin}} {{name}} {{order}}" }),
      await w.campaign({ category: "promotional" }),
    ];
    const paramsOf = (category: string) =>
      category === "otp" ? { pin: "1", name: "Ada", order: "1" } : { name: "Ada", order: "1" };
    const deleted = await w.profile({ phone_number: PHONE, email: "gone@example.com" });
    await deleteProfile(w.deps, w.actor, deleted.public_id);
    const elsewhere = await sendWorld();
    const foreign = await elsewhere.profile({ phone_number: OTHER_PHONE });
    for (const { campaign_id, category } of campaigns) {
      for (const body of [
        toEmail(campaign_id, "nobody@example.com"),
        toEmail(campaign_id, "gone@example.com"),
        toPublicId(campaign_id, deleted.public_id),
        toPublicId(campaign_id, foreign.public_id),
        toPublicId(campaign_id, "not-an-id"),
      ]) {
        const sent = await w.send({ ...body, params: paramsOf(category) });
        expect(sent._unsafeUnwrapErr()).toMatchObject({
          type: "not_found",
          code: "profile_not_found",
        });
      }
    }
  });

  it("an email that matches more than one active profile is 400 ambiguous_recipient", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    await w.profile({ phone_number: PHONE, email: "family@example.com" });
    await w.profile({ phone_number: OTHER_PHONE, email: "FAMILY@example.com" });
    expect(
      (await w.send(toEmail(campaign_id, "family@example.com")))._unsafeUnwrapErr(),
    ).toMatchObject({ type: "ambiguous", code: "ambiguous_recipient" });
    expect(await w.storage.raw.deliveries()).toEqual([]);
  });
});

describe("Promotional campaigns (docs/api.md Recipients, docs/decisions.md Promotional consent)", () => {
  it("a phone number without a profile is 404, and no profile is created", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign({ category: "promotional" });
    expect((await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrapErr()).toMatchObject({
      type: "not_found",
      code: "profile_not_found",
    });
    expect(await w.storage.profiles.findByPhone(w.actor.organizationId, PHONE)).toBeNull();
  });

  describe.each([
    ["viber", "sms"],
    ["sms", "viber"],
  ] as const)("a promotional campaign on %s", (channel, other) => {
    const consentOn = (on: "viber" | "sms") => ({ [`${on}_marketing_consent`]: true });

    it("is 403 for a profile whose consent is on the other channel, saying promotional consent was not found", async () => {
      const w = await sendWorld();
      const campaign = await w.campaign({ category: "promotional", channel });
      await w.profile({ phone_number: PHONE, ...consentOn(other) });
      expect((await w.send(sendBody(campaign.campaign_id, PHONE)))._unsafeUnwrapErr()).toEqual({
        type: "forbidden",
        code: "consent_missing",
        message: `Promotional consent was not found for the profile on the ${channel} channel.`,
      });
      expect(w.sandbox.dispatched).toEqual([]);
    });

    it("lets the message go with consent on its channel", async () => {
      const w = await sendWorld();
      const campaign = await w.campaign({ category: "promotional", channel });
      await w.profile({ phone_number: PHONE, ...consentOn(channel) });
      const sent = (await w.send(sendBody(campaign.campaign_id, PHONE)))._unsafeUnwrap();
      expect(sent.status).toBe("sent");
    });
  });

  it("OTP and Transactional need no marketing consent", async () => {
    const w = await sendWorld();
    await w.profile({ phone_number: PHONE });
    const { campaign_id } = await w.campaign({ category: "transactional", channel: "sms" });
    expect((await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap().status).toBe("sent");
  });
});
