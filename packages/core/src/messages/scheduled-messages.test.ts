import { describe, expect, it } from "vitest";
import { revokeApiKey } from "../auth/api-keys.js";
import { inboundSink } from "../inbound/inbound-sink.js";
import type { LocalCalendar } from "../ports.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { cancelMessage, releaseDueMessages } from "./scheduled-messages.js";

const PHONE = "+14155552671";
// The world's clock starts at 2026-05-01T12:00Z, a Friday: 05:00 in San Francisco.
const calendar: LocalCalendar = {
  zonesOf: (number) => (number.startsWith("+1415") ? ["America/Los_Angeles"] : []),
  isPublicHoliday: () => false,
};
const WINDOW = { days: ["mon", "tue", "wed", "thu", "fri", "sat"], start: "09:00", end: "20:00" };

async function heldWorld() {
  const w = await sendWorld({ calendar });
  const campaign = await w.campaign({
    channel: "sms",
    category: "promotional",
    sending_window: WINDOW,
  });
  const recipient = await w.profile({ phone_number: PHONE, sms_marketing_consent: true });
  return { ...w, campaignId: campaign.campaign_id, profileId: recipient.public_id };
}

describe("a send outside its campaign's sending window", () => {
  it("is held scheduled until the window opens, then sent with its TTL counted from then", async () => {
    const w = await heldWorld();
    const held = (await w.send(sendBody(w.campaignId, PHONE)))._unsafeUnwrap();
    expect(held).toEqual({
      message_id: held.message_id,
      status: "scheduled",
      scheduled_for: "2026-05-01T16:00:00.000Z", // 09:00 PDT
      client_reference: null,
      error: null,
    });
    expect(await w.topics(held.message_id)).toEqual([]);
    expect(await releaseDueMessages(w.deps)).toMatchObject({ released: 0 });

    w.clock.set(Date.parse("2026-05-01T16:00:00.250Z"));
    const round = await releaseDueMessages(w.deps);
    expect(round).toMatchObject({ released: 1, refused: 0, abandoned: 0, lagsMs: [250] });
    const sent = await w.storage.raw.message(held.message_id);
    expect(sent).toMatchObject({ status: "sent", scheduledFor: "2026-05-01T16:00:00.000Z" });
    expect(sent?.expiresAt).toBe("2026-05-02T16:00:00.250Z");
    expect(await w.topics(held.message_id)).toEqual(["message.sent"]);
    expect(w.sandbox.dispatched.map((m) => m.messageId)).toEqual([held.message_id]);
    // Released once: a second round finds nothing.
    expect(await releaseDueMessages(w.deps)).toMatchObject({ released: 0 });
  });

  it("goes at once when the window is open", async () => {
    const w = await heldWorld();
    w.clock.set(Date.parse("2026-05-01T18:00:00Z"));
    const sent = (await w.send(sendBody(w.campaignId, PHONE)))._unsafeUnwrap();
    expect(sent.status).toBe("sent");
  });

  it("is 422 no_sending_time when the recipient's zone is unknown, and nothing is stored", async () => {
    const w = await heldWorld();
    const unknownZone = "+33612345678";
    await w.profile({ phone_number: unknownZone, sms_marketing_consent: true });
    const refused = (await w.send(sendBody(w.campaignId, unknownZone)))._unsafeUnwrapErr();
    expect(refused).toMatchObject({ type: "unprocessable", code: "no_sending_time" });
    // The profile's own time_zone decides instead.
    const w2 = await heldWorld();
    await w2.profile({
      phone_number: unknownZone,
      sms_marketing_consent: true,
      time_zone: "Europe/London",
    });
    const held = (await w2.send(sendBody(w2.campaignId, unknownZone)))._unsafeUnwrap();
    expect(held).toMatchObject({ status: "sent" }); // 13:00 in London, a Friday
  });

  it("is refused at release when consent was withdrawn meanwhile: failed with message.failed", async () => {
    const w = await heldWorld();
    const held = (await w.send(sendBody(w.campaignId, PHONE)))._unsafeUnwrap();
    const profile = await w.storage.raw.profile(w.profileId);
    if (profile === null) throw new Error("no profile");
    await w.storage.profiles.update({ ...profile, smsMarketingConsent: false });
    w.clock.set(Date.parse("2026-05-01T16:00:00Z"));
    expect(await releaseDueMessages(w.deps)).toMatchObject({ released: 0, refused: 1 });
    expect(await w.storage.raw.message(held.message_id)).toMatchObject({
      status: "failed",
      error: { code: "consent_missing" },
    });
    expect(await w.topics(held.message_id)).toEqual(["message.failed"]);
    expect(w.sandbox.dispatched).toEqual([]);
  });
  it("is refused at release when the number opted out meanwhile: failed recipient_opted_out with message.failed", async () => {
    const w = await sendWorld({ calendar });
    const sender = "+15005550006";
    const campaign = await w.campaign({
      channel: "sms",
      category: "promotional",
      sender,
      sending_window: WINDOW,
    });
    await w.profile({ phone_number: PHONE, sms_marketing_consent: true });
    const held = (await w.send(sendBody(campaign.campaign_id, PHONE)))._unsafeUnwrap();
    expect(held.status).toBe("scheduled");
    await w.storage.senders.assign({
      organizationId: w.actor.organizationId,
      channel: "sms",
      sender,
      createdAt: "2026-05-01T12:00:00.000Z",
    });
    const stop = await inboundSink(w.deps).receive({
      provider: "twilio",
      providerMessageId: "SM-stop",
      channel: "sms",
      from: PHONE,
      to: sender,
      text: "STOP",
      receivedAt: null,
      providerKeywordClass: null,
    });
    expect(stop).toBe("stored");
    w.clock.set(Date.parse("2026-05-01T16:00:00Z"));
    expect(await releaseDueMessages(w.deps)).toMatchObject({ released: 0, refused: 1 });
    expect(await w.storage.raw.message(held.message_id)).toMatchObject({
      status: "failed",
      error: { code: "recipient_opted_out" },
    });
    expect(await w.topics(held.message_id)).toEqual(["message.failed"]);
    expect(w.sandbox.dispatched).toEqual([]);
  });
});

describe("send_at", () => {
  it("holds a send until send_at, even without a window", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const sendAt = "2026-05-01T14:00:05+02:00"; // 12:00:05Z
    const held = (await w.send(sendBody(campaign_id, PHONE, { send_at: sendAt })))._unsafeUnwrap();
    expect(held).toMatchObject({ status: "scheduled", scheduled_for: "2026-05-01T12:00:05.000Z" });
    w.clock.advance(4_999);
    expect(await releaseDueMessages(w.deps)).toMatchObject({ released: 0 });
    w.clock.advance(1);
    expect(await releaseDueMessages(w.deps)).toMatchObject({ released: 1 });
    // A past send_at is now.
    const now = (
      await w.send(sendBody(campaign_id, PHONE, { send_at: "2026-01-01T00:00:00Z" }))
    )._unsafeUnwrap();
    expect(now.status).toBe("sent");
  });

  it.each([
    ["tomorrow"],
    ["2026-05-02T09:00:00"], // no offset
    ["2026-05-02"],
    ["2026-06-01T12:00:01Z"], // more than 30 days ahead
  ])("refuses %s with 400 naming send_at", async (sendAt) => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const error = (
      await w.send(sendBody(campaign_id, PHONE, { send_at: sendAt }))
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "validation" });
    expect(error.type === "validation" && error.issues.map((i) => i.path)).toEqual(["send_at"]);
  });
});

describe("cancel and the race with release", () => {
  it("cancels a scheduled message once; it is never sent; anything else is 409", async () => {
    const w = await heldWorld();
    const held = (await w.send(sendBody(w.campaignId, PHONE)))._unsafeUnwrap();
    const view = (await cancelMessage(w.deps, w.actor, held.message_id))._unsafeUnwrap();
    expect(view).toMatchObject({ status: "cancelled", scheduled_for: "2026-05-01T16:00:00.000Z" });
    expect(await w.topics(held.message_id)).toEqual(["message.cancelled"]);
    const again = (await cancelMessage(w.deps, w.actor, held.message_id))._unsafeUnwrapErr();
    expect(again).toMatchObject({ type: "conflict", code: "message_not_scheduled" });
    w.clock.set(Date.parse("2026-05-01T16:00:00Z"));
    expect(await releaseDueMessages(w.deps)).toMatchObject({ released: 0 });
    expect(w.sandbox.dispatched).toEqual([]);
  });

  it("of a release and a cancel racing, exactly one wins", async () => {
    const w = await heldWorld();
    const held = (await w.send(sendBody(w.campaignId, PHONE)))._unsafeUnwrap();
    w.clock.set(Date.parse("2026-05-01T16:00:00Z"));
    const [round, cancel] = await Promise.all([
      releaseDueMessages(w.deps),
      cancelMessage(w.deps, w.actor, held.message_id),
    ]);
    expect(round.released + (cancel.isOk() ? 1 : 0)).toBe(1);
  });

  it("two processes releasing at once send each message once", async () => {
    const w = await heldWorld();
    for (let i = 0; i < 5; i++) (await w.send(sendBody(w.campaignId, PHONE)))._unsafeUnwrap();
    w.clock.set(Date.parse("2026-05-01T16:00:00Z"));
    const rounds = await Promise.all([releaseDueMessages(w.deps), releaseDueMessages(w.deps)]);
    expect(rounds[0].released + rounds[1].released).toBe(5);
  });

  it("a message left releasing by a dead process ends failed upstream_unavailable, unsent", async () => {
    const w = await heldWorld();
    const held = (await w.send(sendBody(w.campaignId, PHONE)))._unsafeUnwrap();
    w.clock.set(Date.parse("2026-05-01T16:00:00Z"));
    // The dead process took it and went no further.
    await w.storage.messages.advance(held.message_id, ["scheduled"], {
      status: "releasing",
      updatedAt: "2026-05-01T16:00:00.000Z",
    });
    w.clock.advance(69_000);
    expect(await releaseDueMessages(w.deps)).toMatchObject({ abandoned: 0 });
    w.clock.advance(2_000);
    expect(await releaseDueMessages(w.deps)).toMatchObject({ abandoned: 1, released: 0 });
    expect(await w.storage.raw.message(held.message_id)).toMatchObject({
      status: "failed",
      error: { code: "upstream_unavailable" },
    });
    expect(w.sandbox.dispatched).toEqual([]);
  });
});

describe("revoking a key", () => {
  it("cancels the messages it scheduled, each with message.cancelled", async () => {
    const w = await heldWorld();
    const held = (await w.send(sendBody(w.campaignId, PHONE)))._unsafeUnwrap();
    (await revokeApiKey(w.deps, w.actor.apiKeyId))._unsafeUnwrap();
    expect(await w.storage.raw.message(held.message_id)).toMatchObject({ status: "cancelled" });
    expect(await w.topics(held.message_id)).toEqual(["message.cancelled"]);
  });
});
