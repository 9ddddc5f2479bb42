import { describe, expect, it } from "vitest";
import type { ChannelProvider, DispatchResult, OutboundMessage } from "../ports.js";
import { channelRouter } from "../providers/channel-router.js";
import { upstreamError } from "../providers/upstream-errors.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { recordUpstreamReport } from "./provider-report.js";
import { runDueFallbacks } from "./sms-fallback.js";

const PHONE = "+14155552671";

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

/** Viber on "infobip", SMS on "twilio", both accepting; a campaign with a 600 s TTL. */
async function setup(
  options: { smsAnswer?: DispatchResult; sms_fallback?: boolean; sms_sender?: string } = {},
) {
  const viber = scripted("infobip", (m) => ({
    status: "accepted",
    providerMessageId: m.messageId,
  }));
  const sms = scripted(
    "twilio",
    () => options.smsAnswer ?? { status: "accepted", providerMessageId: "SM-1" },
  );
  const router = channelRouter({ viber: viber.provider, sms: sms.provider });
  const w = await sendWorld({ provider: router });
  const { campaign_id } = await w.campaign({
    sms_fallback: options.sms_fallback ?? true,
    ttl_seconds: 600,
    ...(options.sms_sender === undefined ? {} : { sms_sender: options.sms_sender }),
  });
  const { message_id } = (await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap();
  const viberReport = (status: "failed" | "expired" | "delivered") =>
    recordUpstreamReport(w.deps, {
      messageId: message_id,
      channel: "viber",
      provider: "infobip",
      providerMessageId: message_id,
      status,
      providerCode: status === "failed" ? "EC_UNKNOWN_USER" : null,
    });
  return { w, viber, sms, message_id, viberReport };
}

describe("SMS fallback after the fact", () => {
  it("a Viber leg that may fall back gets half the TTL, so the SMS has the rest", async () => {
    const { viber } = await setup();
    expect(viber.dispatched[0]?.ttlSeconds).toBe(300);
    const without = await setup({ sms_fallback: false });
    expect(without.viber.dispatched[0]?.ttlSeconds).toBe(600);
  });

  it("two copies of the failure report arriving together still owe the SMS, and fail nothing", async () => {
    const { w, message_id, viberReport, sms } = await setup();
    const outcomes = await Promise.all([viberReport("failed"), viberReport("failed")]);
    expect(outcomes.map((o) => o._unsafeUnwrap().fell_back).sort()).toEqual([false, true]);
    expect(await w.storage.raw.message(message_id)).toMatchObject({
      channel: "sms",
      status: "sent",
    });
    expect(await w.topics(message_id)).toEqual(["message.sent"]);
    w.clock.advance(100_000);
    expect(await runDueFallbacks(w.deps)).toBe(1);
    expect(sms.dispatched).toHaveLength(1);
  });

  it("keeps a provider's description and code only as clean, bounded text", async () => {
    const { w, message_id } = await setup({ sms_fallback: false });
    await recordUpstreamReport(w.deps, {
      messageId: message_id,
      channel: "viber",
      provider: "infobip",
      providerMessageId: message_id,
      status: "failed",
      providerCode: "EC\u0000X",
      description: `bad\u0000\ud800 ${"x".repeat(2000)}`,
    });
    const stored = await w.storage.raw.message(message_id);
    const error = stored?.error as { message: string; provider_code: string };
    expect(error.provider_code).toBe("EC X");
    expect(error.message.includes("\u0000") || error.message.includes("\ud800")).toBe(false);
    expect(error.message.length).toBeLessThan(700);
  });

  it("a Viber failure report moves the message to SMS with its SMS due, and records no event", async () => {
    const { w, message_id, viberReport, sms } = await setup();
    const outcome = (await viberReport("failed"))._unsafeUnwrap();
    expect(outcome).toMatchObject({ applied: true, status: "sent", fell_back: true });
    expect(await w.storage.raw.message(message_id)).toMatchObject({
      channel: "sms",
      status: "sent",
      fallbackDueAt: expect.any(String),
    });
    expect(await w.topics(message_id)).toEqual(["message.sent"]);
    expect(sms.dispatched).toHaveLength(0);

    w.clock.advance(100_000);
    expect(await runDueFallbacks(w.deps)).toBe(1);
    expect(sms.dispatched).toEqual([
      expect.objectContaining({ channel: "sms", messageId: message_id, ttlSeconds: 500 }),
    ]);
    expect(await w.storage.raw.message(message_id)).toMatchObject({
      channel: "sms",
      fallbackDueAt: null,
      viberProvider: "infobip",
      smsProvider: "twilio",
      smsProviderMessageId: "SM-1",
    });
    // The job ran once: nothing more is due.
    expect(await runDueFallbacks(w.deps)).toBe(0);
    expect(sms.dispatched).toHaveLength(1);
  });

  it("after the switch, late Viber reports change nothing; the SMS's reports move the lifecycle", async () => {
    const { w, message_id, viberReport } = await setup();
    await viberReport("expired");
    await runDueFallbacks(w.deps);
    expect((await viberReport("delivered"))._unsafeUnwrap()).toMatchObject({
      applied: false,
      ignored: "superseded_leg",
    });
    const delivered = await recordUpstreamReport(w.deps, {
      messageId: message_id,
      channel: "sms",
      provider: "twilio",
      providerMessageId: "SM-1",
      status: "delivered",
      providerCode: null,
    });
    expect(delivered._unsafeUnwrap()).toMatchObject({ applied: true, status: "delivered" });
    const events = await w.storage.raw.events(message_id);
    expect(events.map((e) => [e.topic, e.channel])).toEqual([
      ["message.sent", "viber"],
      ["message.delivered", "sms"],
    ]);
  });

  it("an SMS refused too: message.failed names the SMS provider", async () => {
    const refused: DispatchResult = {
      status: "rejected",
      error: upstreamError("upstream_rejected", "Opted out.", "twilio", "21610"),
    };
    const { w, message_id, viberReport } = await setup({ smsAnswer: refused });
    await viberReport("failed");
    await runDueFallbacks(w.deps);
    expect(await w.topics(message_id)).toEqual(["message.sent", "message.failed"]);
    expect((await w.storage.raw.message(message_id))?.error).toMatchObject({
      provider: "twilio",
      provider_code: "21610",
    });
  });

  it("without fallback the Viber failure fails the message", async () => {
    const { w, message_id, viberReport } = await setup({ sms_fallback: false });
    expect((await viberReport("failed"))._unsafeUnwrap()).toMatchObject({ fell_back: false });
    expect(await w.topics(message_id)).toEqual(["message.sent", "message.failed"]);
    expect(await runDueFallbacks(w.deps)).toBe(0);
  });

  it("the SMS goes from the campaign's sms_sender when it has one, else from its sender", async () => {
    const own = await setup({ sms_sender: "AcmeSMS" });
    await own.viberReport("failed");
    await runDueFallbacks(own.w.deps);
    expect(own.sms.dispatched[0]?.sender).toBe("AcmeSMS");
    const plain = await setup();
    await plain.viberReport("failed");
    await runDueFallbacks(plain.w.deps);
    expect(plain.sms.dispatched[0]?.sender).toBe("Tidings");
  });

  it("a worker that died holding the job leaves it to another once its lease ends", async () => {
    const { w, message_id, viberReport, sms } = await setup();
    await viberReport("failed");
    const due = (await w.storage.raw.message(message_id))?.fallbackDueAt ?? "";
    // The dead worker took the job (its lease runs 60 s) and never finished it.
    const lease = new Date(Date.parse(due) + 60_000).toISOString();
    expect(await w.storage.messages.moveFallback(message_id, due, lease)).toBe(true);
    expect(await runDueFallbacks(w.deps)).toBe(0);
    w.clock.advance(60_000);
    expect(await runDueFallbacks(w.deps)).toBe(1);
    expect(sms.dispatched).toHaveLength(1);
  });

  it("a message that expired before its SMS was sent is not sent", async () => {
    const { w, message_id, viberReport, sms } = await setup();
    await viberReport("failed");
    await w.storage.messages.advance(message_id, ["sent"], {
      status: "expired",
      updatedAt: new Date(w.clock.now()).toISOString(),
    });
    expect(await runDueFallbacks(w.deps)).toBe(1);
    expect(sms.dispatched).toHaveLength(0);
  });

  describe("of a campaign with a sending window", () => {
    // The world's clock starts on Friday 2026-05-01 at 12:00 UTC, inside the window.
    async function windowed(ttlSeconds: number) {
      const viber = scripted("infobip", (m) => ({
        status: "accepted",
        providerMessageId: m.messageId,
      }));
      const sms = scripted("twilio", () => ({ status: "accepted", providerMessageId: "SM-1" }));
      const w = await sendWorld({
        provider: channelRouter({ viber: viber.provider, sms: sms.provider }),
        calendar: { zonesOf: () => ["UTC"], isPublicHoliday: () => false },
      });
      const { campaign_id } = await w.campaign({
        category: "promotional",
        sms_fallback: true,
        ttl_seconds: ttlSeconds,
        sending_window: {
          days: ["mon", "tue", "wed", "thu", "fri", "sat"],
          start: "09:00",
          end: "13:00",
        },
      });
      await w.profile({
        phone_number: PHONE,
        viber_marketing_consent: true,
        sms_marketing_consent: true,
      });
      const sent = (await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap();
      expect(sent.status).toBe("sent");
      // Viber's failure comes after the window closed.
      w.clock.set(Date.parse("2026-05-01T13:30:00Z"));
      await recordUpstreamReport(w.deps, {
        messageId: sent.message_id,
        channel: "viber",
        provider: "infobip",
        providerMessageId: sent.message_id,
        status: "failed",
        providerCode: "EC_UNKNOWN_USER",
      });
      return { w, sms, messageId: sent.message_id };
    }

    it("waits for the window's next opening when that comes before the message expires", async () => {
      const { w, sms, messageId } = await windowed(86_400);
      expect(await runDueFallbacks(w.deps)).toBe(1);
      expect(sms.dispatched).toHaveLength(0);
      expect((await w.storage.raw.message(messageId))?.fallbackDueAt).toBe(
        "2026-05-02T09:00:00.000Z",
      );
      w.clock.set(Date.parse("2026-05-02T08:59:59Z"));
      expect(await runDueFallbacks(w.deps)).toBe(0);
      w.clock.set(Date.parse("2026-05-02T09:00:00.500Z"));
      expect(await runDueFallbacks(w.deps)).toBe(1);
      expect(sms.dispatched.map((m) => m.messageId)).toEqual([messageId]);
    });

    it("sends nothing when the window opens only after the message expires; the message expires", async () => {
      const { w, sms, messageId } = await windowed(7_200);
      expect(await runDueFallbacks(w.deps)).toBe(1);
      expect(await w.storage.raw.message(messageId)).toMatchObject({
        status: "sent",
        fallbackDueAt: null,
      });
      w.clock.set(Date.parse("2026-05-02T09:00:00.500Z"));
      expect(await runDueFallbacks(w.deps)).toBe(0);
      expect(sms.dispatched).toHaveLength(0);
    });
  });
});
