import { describe, expect, it } from "vitest";
import type { ChannelProvider, DispatchResult, OutboundMessage } from "../ports.js";
import { channelRouter } from "../providers/channel-router.js";
import { failoverProvider } from "../providers/failover-provider.js";
import { upstreamError } from "../providers/upstream-errors.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { toMessageView } from "./message-view.js";
import { recordUpstreamReport } from "./provider-report.js";

const PHONE = "+14155552671";

/** A provider named `name` that answers each dispatch with `answer`, keeping what it got. */
function scripted(name: string, answer: (message: OutboundMessage) => DispatchResult) {
  const dispatched: OutboundMessage[] = [];
  const provider: ChannelProvider = {
    name,
    dispatch: async (message) => {
      dispatched.push(message);
      return answer(message);
    },
  };
  return { provider, dispatched };
}

/** Viber on a provider that finds nobody on Viber, SMS on one that accepts with an id. */
function viberNowhereSmsOk() {
  const viber = scripted("infobip", () => ({
    status: "not_on_channel",
    error: upstreamError("upstream_rejected", "Not a Viber user.", "infobip", "EC_UNKNOWN_USER"),
  }));
  const sms = scripted("twilio", (m) => ({
    status: "accepted",
    providerMessageId: `SM-${m.messageId}`,
  }));
  return { viber, sms, router: channelRouter({ viber: viber.provider, sms: sms.provider }) };
}

describe("provider legs: which provider carried a message, under which id", () => {
  it("the campaign channel's provider is kept from the start, with the id its answer gave", async () => {
    const provider = scripted("infobip", (m) => ({
      status: "accepted",
      providerMessageId: m.messageId,
    }));
    const w = await sendWorld({ provider: provider.provider });
    const { campaign_id } = await w.campaign();
    const { message_id } = (await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap();
    const stored = await w.storage.raw.message(message_id);
    expect(stored).toMatchObject({
      viberProvider: "infobip",
      viberProviderMessageId: message_id,
      smsProvider: null,
      smsProviderMessageId: null,
    });
    expect(toMessageView(stored!)).toMatchObject({
      provider: "infobip",
      provider_message_id: message_id,
    });
  });

  it("the sandbox leg has no provider message id and costs no write after the insert", async () => {
    const w = await sendWorld();
    const legsWritten: string[] = [];
    const recordLeg = w.storage.messages.recordLeg;
    w.storage.messages.recordLeg = (id, channel, leg) => {
      legsWritten.push(id);
      return recordLeg(id, channel, leg);
    };
    const { campaign_id } = await w.campaign({ channel: "sms" });
    const { message_id } = (await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap();
    expect(legsWritten).toEqual([]);
    const stored = await w.storage.raw.message(message_id);
    expect(toMessageView(stored!)).toMatchObject({
      provider: "sandbox",
      provider_message_id: null,
    });
  });

  it("a fallback keeps both legs, each on its own provider; the view shows the SMS leg", async () => {
    const { sms, router } = viberNowhereSmsOk();
    const w = await sendWorld({ provider: router });
    const { campaign_id } = await w.campaign({ sms_fallback: true });
    const { message_id, status } = (await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap();
    expect(status).toBe("sent");
    expect(sms.dispatched.map((m) => m.channel)).toEqual(["sms"]);
    const stored = (await w.storage.raw.message(message_id))!;
    expect(stored).toMatchObject({
      channel: "sms",
      viberProvider: "infobip",
      viberProviderMessageId: null,
      smsProvider: "twilio",
      smsProviderMessageId: `SM-${message_id}`,
    });
    expect(toMessageView(stored)).toMatchObject({
      provider: "twilio",
      provider_message_id: `SM-${message_id}`,
    });
  });

  it("a leg keeps the providers tried before it and a clamped TTL, and the view shows them", async () => {
    const twilio = scripted("twilio", () => ({
      status: "rejected",
      notTaken: "unreachable",
      error: upstreamError("upstream_unavailable", "Twilio could not be reached.", "twilio"),
    }));
    const vonage = scripted("vonage", () => ({
      status: "accepted",
      providerMessageId: "uuid-1",
      clampedTtlSeconds: 604_800,
    }));
    const provider = failoverProvider(
      [
        { provider: twilio.provider, senders: null },
        { provider: vonage.provider, senders: { "+14155550100": "14155550199" } },
      ],
      { onTimeout: false },
    );
    const w = await sendWorld({ provider });
    const { campaign_id } = await w.campaign({ channel: "sms", sender: "+14155550100" });
    const { message_id } = (await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap();
    const stored = (await w.storage.raw.message(message_id))!;
    const triedBefore = [{ provider: "twilio", outcome: "unreachable" }];
    expect(stored).toMatchObject({
      smsProvider: "vonage",
      smsLegNotes: { triedBefore, clampedTtlSeconds: 604_800 },
      viberLegNotes: null,
    });
    expect(toMessageView(stored)).toMatchObject({
      provider: "vonage",
      provider_message_id: "uuid-1",
      tried_before: triedBefore,
      provider_ttl_seconds: 604_800,
    });
  });

  it("a refusal's error names the provider that refused and its own code", async () => {
    const { router } = viberNowhereSmsOk();
    const w = await sendWorld({ provider: router });
    const { campaign_id } = await w.campaign();
    const result = (await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap();
    expect(result.error).toEqual({
      code: "upstream_rejected",
      message: "Not a Viber user.",
      provider: "infobip",
      provider_code: "EC_UNKNOWN_USER",
    });
  });

  it("an error without a provider is stamped with the leg's provider, and a null code", async () => {
    const broken = scripted("vonage", () => ({
      status: "rejected",
      error: { code: "upstream_rejected", message: "No." },
    }));
    const w = await sendWorld({ provider: broken.provider });
    const { campaign_id } = await w.campaign({ channel: "sms" });
    const result = (await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap();
    expect(result.error).toEqual({
      code: "upstream_rejected",
      message: "No.",
      provider: "vonage",
      provider_code: null,
    });
  });
});

describe("recordUpstreamReport: a real upstream's report applies to the current leg only", () => {
  async function sentBySms() {
    const { router } = viberNowhereSmsOk();
    const w = await sendWorld({ provider: router });
    const { campaign_id } = await w.campaign({ sms_fallback: true });
    const { message_id } = (await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap();
    const report = {
      messageId: message_id,
      channel: "sms" as const,
      provider: "twilio",
      providerMessageId: `SM-${message_id}`,
      providerCode: null,
    };
    return { w, message_id, report };
  }

  it("a report of the current leg moves the lifecycle, once", async () => {
    const { w, message_id, report } = await sentBySms();
    const first = await recordUpstreamReport(w.deps, { ...report, status: "delivered" });
    expect(first._unsafeUnwrap()).toEqual({
      message_id,
      applied: true,
      status: "delivered",
      ignored: null,
      fell_back: false,
    });
    const again = await recordUpstreamReport(w.deps, { ...report, status: "delivered" });
    expect(again._unsafeUnwrap()).toMatchObject({ applied: false, ignored: null });
    expect(await w.topics(message_id)).toEqual(["message.sent", "message.delivered"]);
  });

  it("a report of the superseded Viber leg changes nothing", async () => {
    const { w, message_id } = await sentBySms();
    const late = await recordUpstreamReport(w.deps, {
      messageId: message_id,
      channel: "viber",
      provider: "infobip",
      providerMessageId: message_id,
      providerCode: "EC_UNKNOWN_USER",
      status: "failed",
    });
    expect(late._unsafeUnwrap()).toMatchObject({ applied: false, ignored: "superseded_leg" });
    expect(await w.topics(message_id)).toEqual(["message.sent"]);
  });

  it("another provider's report, or another provider message id, changes nothing", async () => {
    const { w, message_id, report } = await sentBySms();
    const otherProvider = await recordUpstreamReport(w.deps, {
      ...report,
      provider: "vonage",
      status: "delivered",
    });
    expect(otherProvider._unsafeUnwrap()).toMatchObject({ ignored: "other_provider" });
    const otherId = await recordUpstreamReport(w.deps, {
      ...report,
      providerMessageId: "SM-someone-else",
      status: "delivered",
    });
    expect(otherId._unsafeUnwrap()).toMatchObject({ ignored: "other_provider_message_id" });
    expect(await w.topics(message_id)).toEqual(["message.sent"]);
  });

  it("a report without the provider's id still applies (it may overtake the send's answer)", async () => {
    const { w, report } = await sentBySms();
    const outcome = await recordUpstreamReport(w.deps, {
      ...report,
      providerMessageId: null,
      status: "delivered",
    });
    expect(outcome._unsafeUnwrap()).toMatchObject({ applied: true });
  });

  it("a failure keeps the provider, its code and what it said", async () => {
    const { w, message_id, report } = await sentBySms();
    await recordUpstreamReport(w.deps, {
      ...report,
      status: "failed",
      providerCode: "30003",
      description: "Unreachable destination handset.",
    });
    const stored = await w.storage.raw.message(message_id);
    expect(stored?.error).toEqual({
      code: "upstream_failed",
      message:
        "The upstream reported that the message could not be delivered. The provider said: Unreachable destination handset.",
      provider: "twilio",
      provider_code: "30003",
    });
    const events = await w.storage.raw.events(message_id);
    expect(events.at(-1)).toMatchObject({ topic: "message.failed", error: stored?.error });
  });

  it("an unknown message is message_not_found", async () => {
    const { w, report } = await sentBySms();
    const outcome = await recordUpstreamReport(w.deps, {
      ...report,
      messageId: "01890000-0000-7000-8000-000000000000",
      status: "delivered",
    });
    expect(outcome._unsafeUnwrapErr()).toMatchObject({ code: "message_not_found" });
  });
});
