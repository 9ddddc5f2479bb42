import { describe, expect, it } from "vitest";
import type { ChannelProvider } from "../ports.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { SANDBOX_NUMBERS } from "./sandbox-provider.js";

const PHONE = "+14155552671";

describe("the hand-off to the upstream (docs/api.md Messages: a refused message is still 200)", () => {
  it("an upstream refusal is a 200 result with status failed and error, then message.failed", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const result = (
      await w.send(sendBody(campaign_id, SANDBOX_NUMBERS.rejected, { client_reference: "c-1" }))
    )._unsafeUnwrap();
    expect(result).toEqual({
      message_id: expect.any(String),
      status: "failed",
      client_reference: "c-1",
      error: {
        code: "upstream_rejected",
        message: "The upstream refused the message.",
        provider: "sandbox",
        provider_code: null,
      },
    });
    // message.sent was stored before the hand-off ("accepted for delivery"); the refusal follows.
    expect(await w.topics(result.message_id)).toEqual(["message.sent", "message.failed"]);
    const events = await w.storage.raw.events(result.message_id);
    expect(events[1]?.error).toEqual(result.error);
    expect(await w.storage.raw.message(result.message_id)).toMatchObject({
      status: "failed",
      error: result.error,
    });
  });

  it("a transport failure (dispatch rejects) is a failed result, not an error", async () => {
    const broken: ChannelProvider = {
      name: "broken",
      dispatch: async () => {
        throw new Error("ECONNRESET");
      },
    };
    const w = await sendWorld({ provider: broken });
    const { campaign_id } = await w.campaign();
    const result = (await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap();
    expect(result).toMatchObject({ status: "failed", error: { code: "upstream_unavailable" } });
    expect(await w.topics(result.message_id)).toEqual(["message.sent", "message.failed"]);
  });

  it("Viber with sms_fallback: a recipient not on Viber gets the message by SMS; events say sms", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign({ sms_fallback: true });
    const result = (
      await w.send(sendBody(campaign_id, SANDBOX_NUMBERS.notOnViber))
    )._unsafeUnwrap();
    expect(result).toMatchObject({ status: "sent", error: null });
    expect(w.sandbox.dispatched.map((m) => m.channel)).toEqual(["viber", "sms"]);
    expect((await w.storage.raw.message(result.message_id))?.channel).toBe("sms");
    await w.scheduler.runAll();
    const events = await w.storage.raw.events(result.message_id);
    expect(events.map((e) => [e.topic, e.channel])).toEqual([
      ["message.sent", "viber"],
      ["message.delivered", "sms"],
      ["message.seen", "sms"],
    ]);
  });

  it("Viber without sms_fallback: a recipient not on Viber makes the message fail", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const result = (
      await w.send(sendBody(campaign_id, SANDBOX_NUMBERS.notOnViber))
    )._unsafeUnwrap();
    expect(result).toMatchObject({ status: "failed", error: { code: "not_on_viber" } });
    expect(w.sandbox.dispatched.map((m) => m.channel)).toEqual(["viber"]);
    const events = await w.storage.raw.events(result.message_id);
    expect(events.map((e) => [e.topic, e.channel])).toEqual([
      ["message.sent", "viber"],
      ["message.failed", "viber"],
    ]);
  });

  it("Promotional fallback to SMS needs SMS consent too; without it the message fails", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign({ category: "promotional", sms_fallback: true });
    await w.profile({ phone_number: SANDBOX_NUMBERS.notOnViber, viber_marketing_consent: true });
    const result = (
      await w.send(sendBody(campaign_id, SANDBOX_NUMBERS.notOnViber))
    )._unsafeUnwrap();
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("promotional consent was not found");
    expect(w.sandbox.dispatched.map((m) => m.channel)).toEqual(["viber"]);
  });

  it("Promotional fallback with Viber and SMS consent goes out by SMS", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign({ category: "promotional", sms_fallback: true });
    await w.profile({
      phone_number: SANDBOX_NUMBERS.notOnViber,
      viber_marketing_consent: true,
      sms_marketing_consent: true,
    });
    const result = (
      await w.send(sendBody(campaign_id, SANDBOX_NUMBERS.notOnViber))
    )._unsafeUnwrap();
    expect(result.status).toBe("sent");
    expect(w.sandbox.dispatched.map((m) => m.channel)).toEqual(["viber", "sms"]);
  });

  it("an SMS refusal after the fallback fails the message on the sms channel", async () => {
    const sandbox = (await sendWorld()).sandbox;
    const refusesSms: ChannelProvider = {
      name: "refuses-sms",
      dispatch: async (message) =>
        message.channel === "sms"
          ? { status: "rejected", error: { code: "sms_blocked", message: "Blocked." } }
          : sandbox.dispatch(message),
    };
    const w = await sendWorld({ provider: refusesSms });
    const { campaign_id } = await w.campaign({ sms_fallback: true });
    const result = (
      await w.send(sendBody(campaign_id, SANDBOX_NUMBERS.notOnViber))
    )._unsafeUnwrap();
    expect(result).toMatchObject({ status: "failed", error: { code: "sms_blocked" } });
    const events = await w.storage.raw.events(result.message_id);
    expect(events.map((e) => [e.topic, e.channel])).toEqual([
      ["message.sent", "viber"],
      ["message.failed", "sms"],
    ]);
  });
});
