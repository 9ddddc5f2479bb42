import {
  createIds,
  type InboundOutcome,
  type InboundReport,
  type InboundSink,
  manualClock,
} from "@tidings/core";
import { memoryStorage, readableSecretBox } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";
import { vonageCallbacks } from "./callback-handler.js";
import {
  type PostVonageInboundOptions,
  vonageInboundRequest,
  vonageInboundText,
} from "./testing/vonage-inbound.js";

const SECRET = "vonage-signature-secret";
const API_KEY = "abcd1234";
const UUID = "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab";

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
  // The fake signs with the time of day, as Vonage does.
  const clock = manualClock(Date.now());
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
  const app = vonageCallbacks({
    deps,
    signatureSecret: SECRET,
    apiKey: API_KEY,
    logger: { error: log, warn: log, info: log },
    ...(withSink ? { inbound: sink } : {}),
  });
  const post = async (
    message: Record<string, unknown>,
    options: Partial<PostVonageInboundOptions> = {},
  ) => {
    const request = await vonageInboundRequest(message, {
      signatureSecret: SECRET,
      apiKey: API_KEY,
      ...options,
    });
    return app.handle({ method: "POST", url: "/inbound", ...request });
  };
  return { app, sink, post, logs };
}

const sms = vonageInboundText({
  channel: "sms",
  messageUuid: UUID,
  from: "447700900001",
  to: "447700900000",
  text: "Stop",
  timestamp: new Date("2020-01-01T15:43:21Z"),
});

describe("Vonage inbound messages", () => {
  it("a signed inbound SMS reaches the sink as an InboundReport and is answered 200", async () => {
    const w = world();
    const answer = await w.post(sms);
    expect([answer.status, answer.body, answer.route]).toEqual([
      200,
      "",
      "/providers/vonage/inbound",
    ]);
    expect(w.sink.received).toEqual([
      {
        provider: "vonage",
        providerMessageId: UUID,
        channel: "sms",
        from: "447700900001",
        to: "447700900000",
        text: "Stop",
        receivedAt: new Date("2020-01-01T15:43:21Z"),
        providerKeywordClass: null,
      },
    ]);
  });

  it("a Viber reply (channel viber_service) reaches the sink on the viber channel", async () => {
    const w = world();
    const viber = vonageInboundText({
      channel: "viber_service",
      from: "447700900001",
      to: "16273",
      text: "unsubscribe",
    });
    expect((await w.post(viber)).status).toBe(200);
    expect(w.sink.received.map((r) => [r.channel, r.to, r.text])).toEqual([
      ["viber", "16273", "unsubscribe"],
    ]);
  });

  it("unsigned, forged, stale, another key's or over another body: 403, the sink never called", async () => {
    const w = world();
    expect((await w.post(sms, { signature: null })).status).toBe(403);
    expect((await w.post(sms, { signature: "not.a.jwt" })).status).toBe(403);
    expect((await w.post(sms, { signatureSecret: "another-secret" })).status).toBe(403);
    expect((await w.post(sms, { apiKey: "other-key" })).status).toBe(403);
    expect((await w.post(sms, { iatOffsetSeconds: -600 })).status).toBe(403);
    expect((await w.post(sms, { tamper: true })).status).toBe(403);
    expect(w.sink.received).toEqual([]);
  });

  it("a signed body that is not an inbound message is 400 and reaches nothing", async () => {
    const w = world();
    const { from: _from, ...noFrom } = sms;
    const { message_uuid: _id, ...noId } = sms;
    const { channel: _channel, ...noChannel } = sms;
    const { text: _text, ...noText } = sms;
    for (const message of [noFrom, noId, noChannel, noText]) {
      expect((await w.post(message)).status).toBe(400);
    }
    expect((await w.post({}, { rawBody: "not json" })).status).toBe(400);
    expect((await w.post({}, { rawBody: "[]" })).status).toBe(400);
    expect(w.sink.received).toEqual([]);
  });

  it("another channel of the application, or a picture, is 200 and skipped", async () => {
    const w = world();
    expect((await w.post({ ...sms, channel: "whatsapp" })).status).toBe(200);
    const { text: _text, ...picture } = sms;
    const image = { ...picture, message_type: "image", image: { url: "https://x.example/a" } };
    expect((await w.post(image)).status).toBe(200);
    expect(w.sink.received).toEqual([]);
  });

  it("the same message delivered twice reaches the sink twice (the sink deduplicates)", async () => {
    const w = world("duplicate");
    expect((await w.post(sms)).status).toBe(200);
    expect((await w.post(sms)).status).toBe(200);
    expect(w.sink.received.map((r) => r.providerMessageId)).toEqual([UUID, UUID]);
  });

  it("no owner or a bad sender: 200, logged at info with provider and channel and no number", async () => {
    for (const outcome of ["no_owner", "bad_sender"] as const) {
      const w = world(outcome);
      expect((await w.post(sms)).status).toBe(200);
      const line = w.logs.find((l) => l.msg === "vonage inbound message not stored");
      expect(line?.fields).toEqual({ provider: "vonage", channel: "sms", outcome });
      expect(JSON.stringify(w.logs)).not.toContain("7700900");
    }
  });

  it("a sink that throws is 503 with Retry-After, so Vonage tries again", async () => {
    const w = world();
    w.sink.failure = new Error("storage unavailable");
    const answer = await w.post(sms);
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBeDefined();
  });

  it("only POST; without a sink /inbound does not exist", async () => {
    const w = world();
    const get = await w.app.handle({ method: "GET", url: "/inbound", headers: {} });
    expect([get.status, get.headers.allow]).toEqual([405, "POST"]);
    const without = world("stored", false);
    expect((await without.post(sms)).status).toBe(404);
    expect(without.sink.received).toEqual([]);
  });
});
