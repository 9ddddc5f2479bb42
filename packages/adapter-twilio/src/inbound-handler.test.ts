import {
  createIds,
  type InboundOutcome,
  type InboundReport,
  type InboundSink,
  manualClock,
} from "@tidings/core";
import { memoryStorage, readableSecretBox } from "@tidings/core/testing";
import twilio from "twilio";
import { describe, expect, it } from "vitest";
import { twilioCallbacks } from "./callback-handler.js";
import { EMPTY_TWIML } from "./inbound-handler.js";
import { twilioInboundForm } from "./testing/twilio-inbound.js";

const TOKEN = "test-auth-token";
const WEBHOOK_KEY = "HK0000000000000000000000000000000a";
const WEBHOOK_SECRET = "webhook-key-secret";
const BASE = "https://tidings.example.com/providers/twilio";
const SID = `SM${"a".repeat(32)}`;

/** A sink that keeps what it was handed and answers `outcome` (or throws `failure`). */
function recordingSink(outcome: InboundOutcome = "stored") {
  const received: InboundReport[] = [];
  const sink: InboundSink & { received: InboundReport[]; failure: Error | null } = {
    received,
    failure: null,
    async receive(report) {
      if (sink.failure) throw sink.failure;
      received.push(report);
      return outcome;
    },
  };
  return sink;
}

function world(outcome: InboundOutcome = "stored", withSink = true) {
  const clock = manualClock();
  const deps = {
    storage: memoryStorage(),
    clock,
    ids: createIds(clock),
    secretBox: readableSecretBox,
  };
  const sink = recordingSink(outcome);
  const logs: Array<{ msg: string; fields: Record<string, unknown> | undefined }> = [];
  const log = (msg: string, fields?: Record<string, unknown>) => {
    logs.push({ msg, fields });
  };
  const app = twilioCallbacks({
    deps,
    authToken: TOKEN,
    webhookKeys: { [WEBHOOK_KEY]: WEBHOOK_SECRET },
    publicBaseUrl: BASE,
    logger: { error: log, warn: log, info: log },
    ...(withSink ? { inbound: sink } : {}),
  });
  /** An incoming message as Twilio posts it, signed by the official package unless told. */
  const post = (
    form: Record<string, string>,
    options: { signature?: string | null; headers?: Record<string, string>; url?: string } = {},
  ) => {
    const url = options.url ?? "/inbound";
    const signature =
      options.signature === undefined
        ? twilio.getExpectedTwilioSignature(TOKEN, BASE + url, form)
        : options.signature;
    return app.handle({
      method: "POST",
      url,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(signature === null ? {} : { "X-Twilio-Signature": signature }),
        ...options.headers,
      },
      body: new URLSearchParams(form).toString(),
    });
  };
  return { app, sink, post, logs };
}

const stop = (fields: Partial<Parameters<typeof twilioInboundForm>[0]> = {}) =>
  twilioInboundForm({ from: "+14155550100", to: "+14155550199", body: "Stop", ...fields });

describe("Twilio incoming messages", () => {
  it("a signed incoming message reaches the sink as an InboundReport and is answered with empty TwiML", async () => {
    const w = world();
    const answer = await w.post(stop({ messageSid: SID }));
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toMatch(/^text\/xml/);
    expect(answer.body).toBe(EMPTY_TWIML);
    expect(answer.route).toBe("/providers/twilio/inbound");
    expect(w.sink.received).toEqual([
      {
        provider: "twilio",
        providerMessageId: SID,
        channel: "sms",
        from: "+14155550100",
        to: "+14155550199",
        text: "Stop",
        receivedAt: null,
        providerKeywordClass: null,
      },
    ]);
  });

  it("Advanced Opt-Out's OptOutType is the provider's keyword class", async () => {
    const w = world();
    for (const [type, body] of [
      ["STOP", "arret"],
      ["START", "unstop"],
      ["HELP", "info"],
      ["OTHER", "hello"],
    ] as const) {
      expect((await w.post(stop({ optOutType: type, body }))).status).toBe(200);
    }
    expect(w.sink.received.map((r) => [r.text, r.providerKeywordClass])).toEqual([
      ["arret", "opt_out"],
      ["unstop", "opt_in"],
      ["info", "help"],
      ["hello", null],
    ]);
  });

  it("unsigned, forged, re-signed over another URL or with webhook signing settings: 403, the sink never called", async () => {
    const w = world();
    const form = stop();
    expect((await w.post(form, { signature: null })).status).toBe(403);
    expect((await w.post(form, { signature: "AAAAAAAAAAAAAAAAAAAAAAAAAAA=" })).status).toBe(403);
    const otherUrl = twilio.getExpectedTwilioSignature(TOKEN, `${BASE}/status`, form);
    expect((await w.post(form, { signature: otherUrl })).status).toBe(403);
    const otherToken = twilio.getExpectedTwilioSignature("other", `${BASE}/inbound`, form);
    expect((await w.post(form, { signature: otherToken })).status).toBe(403);
    const settings = { "X-Twilio-Webhooks-Signature-Settings": "v1" };
    expect((await w.post(form, { headers: settings })).status).toBe(403);
    // A parameter changed after signing.
    const signature = twilio.getExpectedTwilioSignature(TOKEN, `${BASE}/inbound`, form);
    const changed = await w.app.handle({
      method: "POST",
      url: "/inbound",
      headers: { "x-twilio-signature": signature },
      body: new URLSearchParams({ ...form, Body: "Start" }).toString(),
    });
    expect(changed.status).toBe(403);
    expect(w.sink.received).toEqual([]);
  });

  it("signed under webhook signing settings with a known key: reaches the sink, as status callbacks do", async () => {
    const w = world();
    const form = stop({ messageSid: SID });
    const settings = `key=${WEBHOOK_KEY},algorithm=HMAC_SHA256`;
    const signature = twilio.getExpectedTwilioSignature(
      WEBHOOK_SECRET,
      `${BASE}/inbound`,
      form,
      twilio.getSignatureAlgorithm(settings),
    );
    const headers = { "X-Twilio-Webhooks-Signature-Settings": settings };
    expect((await w.post(form, { signature, headers })).status).toBe(200);
    expect(w.sink.received.map((report) => report.providerMessageId)).toEqual([SID]);
    const unknownKey = {
      "X-Twilio-Webhooks-Signature-Settings": "key=HKother,algorithm=HMAC_SHA256",
    };
    expect((await w.post(form, { signature, headers: unknownKey })).status).toBe(403);
    expect(w.sink.received).toHaveLength(1);
  });

  it("a signed form that is not an incoming message is 400 and reaches nothing", async () => {
    const w = world();
    const { From: _from, ...noFrom } = stop();
    const { MessageSid: _a, SmsMessageSid: _b, SmsSid: _c, ...noSid } = stop();
    const { To: _to, ...noTo } = stop();
    for (const form of [noFrom, noSid, noTo, {}]) {
      expect((await w.post(form)).status).toBe(400);
    }
    expect(w.sink.received).toEqual([]);
  });

  it("a picture with no text is an incoming message with an empty text", async () => {
    const w = world();
    const { Body: _body, ...form } = stop();
    expect((await w.post({ ...form, NumMedia: "1" })).status).toBe(200);
    expect(w.sink.received.map((r) => r.text)).toEqual([""]);
  });

  it("the same message delivered twice reaches the sink twice (the sink deduplicates)", async () => {
    const w = world("duplicate");
    const form = stop({ messageSid: SID });
    expect((await w.post(form)).status).toBe(200);
    expect((await w.post(form)).status).toBe(200);
    expect(w.sink.received.map((r) => r.providerMessageId)).toEqual([SID, SID]);
  });

  it("no owner or a bad sender: 200, logged at info with provider and channel and no number", async () => {
    for (const outcome of ["no_owner", "bad_sender"] as const) {
      const w = world(outcome);
      const answer = await w.post(stop());
      expect([answer.status, answer.body]).toEqual([200, EMPTY_TWIML]);
      const line = w.logs.find((l) => l.msg === "twilio inbound message not stored");
      expect(line?.fields).toEqual({ provider: "twilio", channel: "sms", outcome });
      expect(JSON.stringify(w.logs)).not.toContain("555");
    }
  });

  it("a sink that throws (storage down) is 503 with Retry-After, so Twilio tries again", async () => {
    const w = world();
    w.sink.failure = new Error("storage unavailable");
    const answer = await w.post(stop());
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBeDefined();
  });

  it("only POST; without a sink /inbound does not exist; the status callbacks still answer", async () => {
    const w = world();
    const get = await w.app.handle({ method: "GET", url: "/inbound", headers: {} });
    expect([get.status, get.headers.allow]).toEqual([405, "POST"]);
    const without = world("stored", false);
    expect((await without.post(stop())).status).toBe(404);
    const status = await w.post({ MessageSid: SID, MessageStatus: "sent" }, { url: "/status" });
    expect(status.status).toBe(200);
    expect(w.sink.received).toEqual([]);
  });

  it("a body over the callback limit is 413 and reaches nothing", async () => {
    const w = world();
    const answer = await w.post(stop({ body: "x".repeat(1024 * 1024 + 1) }));
    expect(answer.status).toBe(413);
    expect(w.sink.received).toEqual([]);
  });
});
