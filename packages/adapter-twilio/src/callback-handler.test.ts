import { createIds, manualClock } from "@tidings/core";
import {
  memoryStorage,
  readableSecretBox,
  seedMessage,
  seedOrganization,
} from "@tidings/core/testing";
import fc from "fast-check";
import twilio from "twilio";
import { describe, expect, it } from "vitest";
import { twilioCallbacks } from "./callback-handler.js";

const TOKEN = "test-auth-token";
const BASE = "https://tidings.example.com/providers/twilio";
const SID = `SM${"c".repeat(32)}`;
const WEBHOOK_KEY = "webhooks_sharedkey_0123";
const WEBHOOK_SECRET = "shared-key-secret";

async function world() {
  const clock = manualClock();
  const storage = memoryStorage();
  const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
  const org = await seedOrganization(storage);
  const { message } = await seedMessage(storage, org, {
    smsProvider: "twilio",
    smsProviderMessageId: SID,
  });
  // Reports come after the send, so their events sort after its message.sent.
  clock.set(Date.parse(message.createdAt) + 1000);
  const logs: string[] = [];
  const log = (msg: string) => {
    logs.push(msg);
  };
  const app = twilioCallbacks({
    deps,
    authToken: TOKEN,
    webhookKeys: { [WEBHOOK_KEY]: WEBHOOK_SECRET },
    publicBaseUrl: BASE,
    logger: { error: log, warn: log, info: log },
  });
  /** A status callback as Twilio posts it, signed by the official package unless told. */
  const post = (
    fields: Record<string, string>,
    options: {
      signature?: string | null;
      messageId?: string;
      headers?: Record<string, string>;
    } = {},
  ) => {
    const url = `/status?m=${options.messageId ?? message.id}`;
    const params = { AccountSid: `AC${"0".repeat(32)}`, MessageSid: SID, ...fields };
    const signature =
      options.signature === undefined
        ? twilio.getExpectedTwilioSignature(TOKEN, BASE + url, params)
        : options.signature;
    return app.handle({
      method: "POST",
      url,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(signature === null ? {} : { "X-Twilio-Signature": signature }),
        ...options.headers,
      },
      body: new URLSearchParams(params).toString(),
    });
  };
  const topics = async () => (await storage.raw.events(message.id)).map((e) => e.topic);
  return { storage, message, post, topics, logs, app };
}

describe("Twilio status callbacks", () => {
  it("a signed delivered report answers 200 with an empty body and records message.delivered", async () => {
    const w = await world();
    const answer = await w.post({ MessageStatus: "delivered", SmsStatus: "delivered" });
    expect([answer.status, answer.body]).toEqual([200, ""]);
    expect(await w.topics()).toEqual(["message.sent", "message.delivered"]);
  });

  it("intermediate statuses change nothing; a repeated report changes nothing", async () => {
    const w = await world();
    for (const status of ["queued", "sending", "sent", "accepted"]) {
      expect((await w.post({ MessageStatus: status })).status).toBe(200);
    }
    await w.post({ MessageStatus: "delivered" });
    await w.post({ MessageStatus: "delivered" });
    await w.post({ MessageStatus: "sent" });
    expect(await w.topics()).toEqual(["message.sent", "message.delivered"]);
  });

  it("undelivered with an error code fails the message, naming Twilio and the code", async () => {
    const w = await world();
    await w.post({ MessageStatus: "undelivered", ErrorCode: "30003" });
    expect((await w.storage.raw.message(w.message.id))?.error).toMatchObject({
      code: "upstream_failed",
      provider: "twilio",
      provider_code: "30003",
    });
    expect(await w.topics()).toEqual(["message.sent", "message.failed"]);
  });

  it("error 30036 (validity period over) expires the message", async () => {
    const w = await world();
    await w.post({ MessageStatus: "failed", ErrorCode: "30036" });
    expect(await w.topics()).toEqual(["message.sent", "message.expired"]);
  });

  it("no signature, a forged one, or one over another body: 403, nothing changes", async () => {
    const w = await world();
    expect((await w.post({ MessageStatus: "delivered" }, { signature: null })).status).toBe(403);
    expect((await w.post({ MessageStatus: "delivered" }, { signature: "Zm9yZ2Vk" })).status).toBe(
      403,
    );
    const otherBody = twilio.getExpectedTwilioSignature(TOKEN, `${BASE}/status?m=${w.message.id}`, {
      AccountSid: `AC${"0".repeat(32)}`,
      MessageSid: SID,
      MessageStatus: "failed",
    });
    const replayed = await w.post({ MessageStatus: "delivered" }, { signature: otherBody });
    expect(replayed.status).toBe(403);
    expect(await w.topics()).toEqual(["message.sent"]);
  });

  it("a signature for another message's URL does not verify for this one", async () => {
    const w = await world();
    const params = {
      AccountSid: `AC${"0".repeat(32)}`,
      MessageSid: SID,
      MessageStatus: "delivered",
    };
    const other = "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b";
    const signature = twilio.getExpectedTwilioSignature(TOKEN, `${BASE}/status?m=${other}`, params);
    expect((await w.post({ MessageStatus: "delivered" }, { signature })).status).toBe(403);
  });

  it("HMAC-SHA256 webhook signing is verified with the named key's secret (as twilio-node signs it)", async () => {
    const w = await world();
    const url = `${BASE}/status?m=${w.message.id}`;
    const params = {
      AccountSid: `AC${"0".repeat(32)}`,
      MessageSid: SID,
      MessageStatus: "delivered",
    };
    const settings = `key=${WEBHOOK_KEY},algorithm=HMAC_SHA256`;
    const signature = twilio.getExpectedTwilioSignature(
      WEBHOOK_SECRET,
      url,
      params,
      twilio.getSignatureAlgorithm(settings),
    );
    const answer = await w.post(
      { MessageStatus: "delivered" },
      { signature, headers: { "X-Twilio-Webhooks-Signature-Settings": settings } },
    );
    expect(answer.status).toBe(200);
    expect(await w.topics()).toEqual(["message.sent", "message.delivered"]);
  });

  it("webhook signing: a forged signature, an unknown key or algorithm is 403 and logged; nothing changes", async () => {
    const w = await world();
    const url = `${BASE}/status?m=${w.message.id}`;
    const params = {
      AccountSid: `AC${"0".repeat(32)}`,
      MessageSid: SID,
      MessageStatus: "delivered",
    };
    const sign = (secret: string) =>
      twilio.getExpectedTwilioSignature(secret, url, params, "HMAC_SHA256");
    const post = (signature: string, settings: string) =>
      w.post(
        { MessageStatus: "delivered" },
        { signature, headers: { "X-Twilio-Webhooks-Signature-Settings": settings } },
      );
    // Signed with the auth token, claiming the shared key: a forgery.
    expect((await post(sign(TOKEN), `key=${WEBHOOK_KEY},algorithm=HMAC_SHA256`)).status).toBe(403);
    expect((await post(sign(WEBHOOK_SECRET), "key=other,algorithm=HMAC_SHA256")).status).toBe(403);
    expect((await post(sign(WEBHOOK_SECRET), `key=${WEBHOOK_KEY},algorithm=HMAC_MD5`)).status).toBe(
      403,
    );
    expect(await w.topics()).toEqual(["message.sent"]);
    expect(w.logs.join("\n")).toMatch(/webhook signing key or algorithm/);
  });

  it("another MessageSid than the leg's is ignored; an unknown message answers 200", async () => {
    const w = await world();
    const other = await w.post({ MessageStatus: "delivered", MessageSid: `SM${"d".repeat(32)}` });
    expect(other.status).toBe(200);
    const unknown = await w.post(
      { MessageStatus: "delivered" },
      { messageId: "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b" },
    );
    expect(unknown.status).toBe(200);
    expect(await w.topics()).toEqual(["message.sent"]);
  });

  it("storage failing answers 503 with Retry-After, so Twilio retries", async () => {
    const w = await world();
    w.storage.messages.getById = async () => {
      throw new Error("database is down");
    };
    const answer = await w.post({ MessageStatus: "delivered" });
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBe("5");
  });

  it("wrong method is 405, another path 404, an oversized body 413", async () => {
    const w = await world();
    expect((await w.app.handle({ method: "GET", url: "/status", headers: {} })).status).toBe(405);
    expect((await w.app.handle({ method: "POST", url: "/other", headers: {} })).status).toBe(404);
    const big = await w.app.handle({
      method: "POST",
      url: "/status",
      headers: {},
      body: "x".repeat(1024 * 1024 + 1),
    });
    expect(big.status).toBe(413);
  });

  it("any sequence of reports leaves the lifecycle forward only, each event at most once", async () => {
    const statuses = ["queued", "sent", "delivered", "undelivered", "failed", "read", "canceled"];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ status: fc.constantFrom(...statuses), code: fc.constantFrom("", "30036") }),
          { maxLength: 8 },
        ),
        async (reports) => {
          const w = await world();
          for (const { status, code } of reports) {
            const answer = await w.post({ MessageStatus: status, ErrorCode: code });
            expect(answer.status).toBe(200);
          }
          const topics = await w.topics();
          expect(new Set(topics).size).toBe(topics.length);
          const order = ["message.sent", "message.delivered", "message.seen"];
          const progress = topics.filter((t) => order.includes(t)).map((t) => order.indexOf(t));
          expect(progress).toEqual([...progress].sort());
          const ends = topics.filter((t) => t === "message.failed" || t === "message.expired");
          expect(ends.length).toBeLessThanOrEqual(1);
          if (ends.length === 1) expect(topics.at(-1)).toBe(ends[0]);
        },
      ),
      { numRuns: 50 },
    );
  });
});
