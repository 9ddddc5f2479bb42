import {
  createIds,
  type InboundOutcome,
  type InboundReport,
  type InboundSink,
  manualClock,
} from "@tidings/core";
import { memoryStorage, readableSecretBox } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";
import { infobipCallbacks } from "./callback-handler.js";
import { inboundTokenProblem, infobipTime } from "./inbound-handler.js";
import {
  infobipInboundBody,
  infobipInboundSms,
  infobipInboundViber,
} from "./testing/infobip-inbound.js";

const TOKEN = "k".repeat(32);
const NEXT = "n".repeat(40);

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

function world(options: { outcome?: InboundOutcome; tokens?: string[]; withSink?: boolean } = {}) {
  const clock = manualClock();
  const deps = {
    storage: memoryStorage(),
    clock,
    ids: createIds(clock),
    secretBox: readableSecretBox,
  };
  const sink = recordingSink(options.outcome);
  const logs: Array<{ msg: string; fields: Record<string, unknown> | undefined }> = [];
  const log = (msg: string, fields?: Record<string, unknown>) => {
    logs.push({ msg, fields });
  };
  const app = infobipCallbacks({
    deps,
    secretKey: new Uint8Array(32),
    logger: { error: log, warn: log, info: log },
    ...(options.withSink === false ? {} : { inbound: sink }),
    inboundTokens: options.tokens ?? [TOKEN, NEXT],
  });
  const post = (results: unknown[], token = TOKEN, body?: string) =>
    app.handle({
      method: "POST",
      url: `/inbound/${token}`,
      headers: { "content-type": "application/json" },
      body: body ?? JSON.stringify(infobipInboundBody(results as Record<string, unknown>[])),
    });
  return { app, sink, post, logs };
}

const sms = infobipInboundSms({
  messageId: "817790313235066447",
  from: "385916242493",
  to: "385921004026",
  text: "STOP please",
  receivedAt: new Date("2026-01-02T03:04:05.678Z"),
});

describe("Infobip inbound messages", () => {
  it("an inbound SMS reaches the sink as an InboundReport; the route label hides the token", async () => {
    const w = world();
    const answer = await w.post([sms]);
    expect([answer.status, answer.body]).toEqual([200, ""]);
    expect(answer.route).toBe("/providers/infobip/inbound/{token}");
    expect(w.sink.received).toEqual([
      {
        provider: "infobip",
        providerMessageId: "817790313235066447",
        channel: "sms",
        from: "385916242493",
        to: "385921004026",
        text: "STOP please",
        receivedAt: new Date("2026-01-02T03:04:05.678Z"),
        providerKeywordClass: null,
      },
    ]);
    expect(JSON.stringify(w.logs)).not.toContain(TOKEN);
  });

  it("a Viber text reaches the sink with the Viber sender as from; a Viber file is skipped", async () => {
    const w = world();
    const viber = infobipInboundViber({
      messageId: "1234567890123456789",
      sender: "385912345678",
      to: "AcmeViber",
      text: "stop",
    });
    const file = infobipInboundViber({
      sender: "385912345678",
      to: "AcmeViber",
      file: { url: "https://example.com/a.pdf", fileName: "a.pdf" },
    });
    expect((await w.post([viber, file])).status).toBe(200);
    expect(w.sink.received).toEqual([
      expect.objectContaining({
        providerMessageId: "1234567890123456789",
        channel: "viber",
        from: "385912345678",
        to: "AcmeViber",
        text: "stop",
      }),
    ]);
  });

  it("several results in one request: each is handed to the sink, in order", async () => {
    const w = world();
    const second = infobipInboundSms({ from: "385916242494", to: "385921004026", text: "START" });
    const viber = infobipInboundViber({ sender: "385912345678", to: "AcmeViber", text: "HELP" });
    expect((await w.post([sms, second, viber])).status).toBe(200);
    expect(w.sink.received.map((r) => [r.channel, r.text])).toEqual([
      ["sms", "STOP please"],
      ["sms", "START"],
      ["viber", "HELP"],
    ]);
  });

  it("either configured token works (rotation); a wrong, missing or prefix token is 404 and reaches nothing", async () => {
    const w = world();
    expect((await w.post([sms], NEXT)).status).toBe(200);
    for (const token of ["x".repeat(32), TOKEN.slice(0, 31), `${TOKEN}k`, ""]) {
      expect((await w.post([sms], token)).status).toBe(404);
    }
    const bare = await w.app.handle({ method: "POST", url: "/inbound", headers: {}, body: "{}" });
    expect(bare.status).toBe(404);
    expect(w.sink.received).toHaveLength(1);
  });

  it("no token configured, or no sink: every inbound request is 404", async () => {
    const none = world({ tokens: [] });
    expect((await none.post([sms])).status).toBe(404);
    const withoutSink = world({ withSink: false });
    expect((await withoutSink.post([sms])).status).toBe(404);
    expect(none.sink.received).toEqual([]);
    expect(withoutSink.sink.received).toEqual([]);
  });

  it("a token shorter than 32 characters or not URL-safe is refused when the app is built", () => {
    expect(() => world({ tokens: ["short"] })).toThrow(/at least 32/);
    expect(inboundTokenProblem(`${"a".repeat(32)}/`)).toMatch(/letters, digits/);
    expect(inboundTokenProblem("a".repeat(32))).toBeNull();
  });

  it("a body not in Infobip's format is 400 and nothing of it reaches the sink", async () => {
    const w = world();
    const { from: _from, ...noFrom } = sms;
    const { messageId: _id, ...noId } = sms;
    const bodies = [
      "not json",
      JSON.stringify({ messages: [sms] }),
      JSON.stringify([sms]),
      JSON.stringify(infobipInboundBody([sms, noFrom])),
      JSON.stringify(infobipInboundBody([noId])),
      JSON.stringify(infobipInboundBody([{ ...sms, text: 42 }])),
      JSON.stringify(infobipInboundBody([{ sender: "385912345678", to: "A", messageId: "1" }])),
      JSON.stringify({ results: ["text"] }),
    ];
    for (const body of bodies) {
      expect((await w.post([], TOKEN, body)).status).toBe(400);
    }
    expect(w.sink.received).toEqual([]);
  });

  it("the same message delivered twice reaches the sink twice (the sink deduplicates)", async () => {
    const w = world({ outcome: "duplicate" });
    expect((await w.post([sms])).status).toBe(200);
    expect((await w.post([sms])).status).toBe(200);
    expect(w.sink.received.map((r) => r.providerMessageId)).toEqual([
      "817790313235066447",
      "817790313235066447",
    ]);
  });

  it("no owner or a bad sender: 200, logged at info with provider and channel and no number", async () => {
    for (const outcome of ["no_owner", "bad_sender"] as const) {
      const w = world({ outcome });
      expect((await w.post([sms])).status).toBe(200);
      const line = w.logs.find((l) => l.msg === "infobip inbound message not stored");
      expect(line?.fields).toEqual({ provider: "infobip", channel: "sms", outcome });
      expect(JSON.stringify(w.logs)).not.toContain("38591");
    }
  });

  it("a sink that throws is 503 with Retry-After, and the route label still hides the token", async () => {
    const w = world();
    w.sink.failure = new Error("storage unavailable");
    const answer = await w.post([sms]);
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBeDefined();
    expect(answer.route).not.toContain(TOKEN);
  });

  it("only POST; the delivery reports are still served beside it", async () => {
    const w = world();
    const get = await w.app.handle({ method: "GET", url: `/inbound/${TOKEN}`, headers: {} });
    expect([get.status, get.headers.allow]).toEqual([405, "POST"]);
    const report = await w.app.handle({ method: "POST", url: "/x.y/delivery", headers: {} });
    expect(report.status).toBe(404);
  });

  it("reads Infobip's time with its colon-less offset", () => {
    expect(infobipTime("2019-11-09T16:00:00.000+0000")?.toISOString()).toBe(
      "2019-11-09T16:00:00.000Z",
    );
    expect(infobipTime("2019-11-09T18:00:00.000+0200")?.toISOString()).toBe(
      "2019-11-09T16:00:00.000Z",
    );
    expect(infobipTime("yesterday")).toBeNull();
    expect(infobipTime(undefined)).toBeNull();
  });
});
