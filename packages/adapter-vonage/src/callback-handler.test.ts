import { createHash } from "node:crypto";
import { createIds, manualClock } from "@tidings/core";
import {
  memoryStorage,
  readableSecretBox,
  seedMessage,
  seedOrganization,
} from "@tidings/core/testing";
import fc from "fast-check";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { vonageCallbacks } from "./callback-handler.js";

const SECRET = "vonage-signature-secret";
const API_KEY = "abcd1234";
const UUID = "aaaaaaaa-0000-4000-8000-000000000001";

async function world() {
  const clock = manualClock();
  const storage = memoryStorage();
  const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
  const org = await seedOrganization(storage);
  const { message } = await seedMessage(storage, org, {
    channel: "viber",
    viberProvider: "vonage",
    viberProviderMessageId: UUID,
    smsProvider: null,
  });
  clock.set(Date.parse(message.createdAt) + 1000);
  const logs: string[] = [];
  const log = (msg: string) => {
    logs.push(msg);
  };
  const app = vonageCallbacks({
    deps,
    signatureSecret: SECRET,
    apiKey: API_KEY,
    logger: { error: log, warn: log, info: log },
  });
  const sign = (body: string, claims: Record<string, unknown> = {}, secret = SECRET) =>
    new SignJWT({
      api_key: API_KEY,
      payload_hash: createHash("sha256").update(body).digest("hex"),
      iat: Math.floor(clock.now() / 1000),
      ...claims,
    })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .sign(new TextEncoder().encode(secret));
  const post = async (
    status: string,
    extra: Record<string, unknown> = {},
    options: {
      authorization?: string | null;
      body?: string;
      claims?: Record<string, unknown>;
      secret?: string;
    } = {},
  ) => {
    const body = JSON.stringify({
      message_uuid: UUID,
      status,
      channel: "viber_service",
      client_ref: message.id,
      ...extra,
    });
    const authorization =
      options.authorization === undefined
        ? `Bearer ${await sign(body, options.claims, options.secret)}`
        : options.authorization;
    return app.handle({
      method: "POST",
      url: "/status",
      headers: {
        "content-type": "application/json",
        ...(authorization === null ? {} : { authorization }),
      },
      body: options.body ?? body,
    });
  };
  const topics = async () => (await storage.raw.events(message.id)).map((e) => e.topic);
  return { storage, message, post, topics, clock, sign, logs };
}

describe("Vonage signed status webhooks", () => {
  it("delivered then read: message.delivered and message.seen, 200 with an empty body", async () => {
    const w = await world();
    const answer = await w.post("submitted");
    expect([answer.status, answer.body]).toEqual([200, ""]);
    expect((await w.post("delivered")).status).toBe(200);
    expect((await w.post("read")).status).toBe(200);
    expect(await w.topics()).toEqual(["message.sent", "message.delivered", "message.seen"]);
  });

  it("undeliverable fails, saying the outage was on Vonage's side; the code is kept", async () => {
    const w = await world();
    await w.post("undeliverable", {
      error: {
        type: "https://developer.vonage.com/api-errors/messages#1340",
        title: 1340,
        detail: "Handset unreachable",
      },
    });
    const error = (await w.storage.raw.message(w.message.id))?.error;
    expect(error).toMatchObject({
      code: "upstream_failed",
      provider: "vonage",
      provider_code: "1340",
    });
    expect(error?.message).toContain("outage on Vonage's side");
  });

  it("rejected with error 1360 expires the message, read from the code (a number title) not the words", async () => {
    const expired = await world();
    await expired.post("rejected", {
      error: {
        type: "https://developer.vonage.com/api-errors/messages-olympus#1360",
        title: 1360,
        detail: "Delivery failed",
      },
    });
    expect(await expired.topics()).toEqual(["message.sent", "message.expired"]);
    // The code alone, as a number title without a type URL.
    const bare = await world();
    await bare.post("rejected", { error: { title: 1360 } });
    expect(await bare.topics()).toEqual(["message.sent", "message.expired"]);
    // 1130 is an invalid TTL, a refused request, whatever its words say.
    const invalid = await world();
    await invalid.post("rejected", {
      error: {
        type: "https://developer.vonage.com/api-errors/messages-olympus#1130",
        title: 1130,
        detail: "Invalid TTL: the time to live has expired or is out of range",
      },
    });
    expect(await invalid.topics()).toEqual(["message.sent", "message.failed"]);
    expect((await invalid.storage.raw.message(invalid.message.id))?.error).toMatchObject({
      provider_code: "1130",
    });
  });

  it("a signed body of another shape is 400 or stored with only what is text: never a 503", async () => {
    const w = await world();
    const signed = async (body: string) => {
      const answer = await w.post("x", {}, { body, authorization: `Bearer ${await w.sign(body)}` });
      return answer.status;
    };
    expect(await signed("null")).toBe(400);
    expect(await signed("[1]")).toBe(400);
    expect(await signed(JSON.stringify({ status: "delivered", client_ref: 12345 }))).toBe(200);
    expect(await w.topics()).toEqual(["message.sent"]);
    expect((await w.post("undeliverable", { error: null })).status).toBe(200);
    const v = await world();
    // A number title is the code, as status webhooks write it; an object detail is dropped.
    expect((await v.post("undeliverable", { error: { title: 42, detail: {} } })).status).toBe(200);
    expect((await v.storage.raw.message(v.message.id))?.error).toMatchObject({
      code: "upstream_failed",
      provider_code: "42",
    });
  });

  it("no Authorization at all: 503 with Retry-After so Vonage retries; nothing changes", async () => {
    const w = await world();
    const answer = await w.post("delivered", {}, { authorization: null });
    expect([answer.status, answer.headers["retry-after"]]).toEqual([503, "5"]);
    expect(await w.topics()).toEqual(["message.sent"]);
  });

  it("forged, wrong key, wrong api_key, stale, other algorithm or replayed with another body: 403", async () => {
    const w = await world();
    expect((await w.post("delivered", {}, { authorization: "Bearer not.a.jwt" })).status).toBe(403);
    expect((await w.post("delivered", {}, { secret: "another-secret" })).status).toBe(403);
    expect((await w.post("delivered", {}, { claims: { api_key: "someone" } })).status).toBe(403);
    expect(
      (await w.post("delivered", {}, { claims: { iat: Math.floor(w.clock.now() / 1000) - 301 } }))
        .status,
    ).toBe(403);
    const none = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify({ api_key: API_KEY })).toString("base64url")}.`;
    expect((await w.post("delivered", {}, { authorization: `Bearer ${none}` })).status).toBe(403);
    const signedFor = JSON.stringify({
      message_uuid: UUID,
      status: "submitted",
      client_ref: w.message.id,
    });
    const replay = `Bearer ${await w.sign(signedFor)}`;
    expect((await w.post("delivered", {}, { authorization: replay })).status).toBe(403);
    expect(await w.topics()).toEqual(["message.sent"]);
  });

  it("another message_uuid than the leg's is ignored", async () => {
    const w = await world();
    await w.post("delivered", { message_uuid: "bbbbbbbb-0000-4000-8000-000000000002" });
    expect(await w.topics()).toEqual(["message.sent"]);
  });

  it("any sequence of statuses leaves the lifecycle forward only, each event at most once", async () => {
    const statuses = ["submitted", "delivered", "read", "rejected", "undeliverable"];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...statuses), { maxLength: 8 }),
        async (sequence) => {
          const w = await world();
          for (const status of sequence) expect((await w.post(status)).status).toBe(200);
          const topics = await w.topics();
          expect(new Set(topics).size).toBe(topics.length);
          const ends = topics.filter((t) => t === "message.failed" || t === "message.expired");
          expect(ends.length).toBeLessThanOrEqual(1);
          if (ends.length === 1) expect(topics.at(-1)).toBe(ends[0]);
        },
      ),
      { numRuns: 40 },
    );
  });
});
