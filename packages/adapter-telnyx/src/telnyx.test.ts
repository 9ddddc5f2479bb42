import { generateKeyPairSync, sign } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type CallbackApp,
  createIds,
  type InboundReport,
  manualClock,
  type OutboundMessage,
} from "@tidings/core";
import {
  fetchTransport,
  memoryStorage,
  readableSecretBox,
  seedMessage,
  seedOrganization,
} from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { telnyxCallbacks } from "./callback-handler.js";
import { checkTelnyxCredentials } from "./plugin.js";
import { telnyxProvider } from "./telnyx-provider.js";
import { type FakeTelnyx, startFakeTelnyx } from "./testing/fake-telnyx.js";
import { telnyxPublicKey, verifyTelnyxWebhook } from "./webhook-signature.js";

const KEY = "KEY01234567890";
const quiet = () => {};
const logger = { error: quiet, warn: quiet, info: quiet };

let fake: FakeTelnyx;
let receiver: Server | null = null;
afterEach(async () => {
  await fake?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  receiver = null;
});

/** Serves a callback app on loopback, as `serve` mounts it, and answers its base URL. */
async function serveApp(app: CallbackApp): Promise<string> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void app
        .handle({
          method: req.method ?? "GET",
          url: req.url ?? "/",
          headers: req.headers,
          body: Buffer.concat(chunks),
        })
        .then((answer) => {
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
        });
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}

async function world(options: { messagingProfileId?: string } = {}) {
  fake = await startFakeTelnyx({ apiKey: KEY, retryAfterSeconds: 0 });
  const clock = manualClock(Date.now());
  const storage = memoryStorage();
  const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
  const org = await seedOrganization(storage);
  const publicKey = telnyxPublicKey(fake.publicKey);
  if (publicKey === null) throw new Error("the fake's key must parse");
  const inbound: InboundReport[] = [];
  const app = telnyxCallbacks({
    deps,
    publicKey,
    logger,
    inbound: {
      async receive(report) {
        inbound.push(report);
        return "stored";
      },
    },
  });
  const base = await serveApp(app);
  const provider = telnyxProvider({
    transport: fetchTransport,
    apiKey: KEY,
    apiUrl: fake.url,
    callbackBaseUrl: () => base,
    messagingProfileId: options.messagingProfileId,
    clock,
    random: () => 0,
  });
  /** A stored message sent through the provider, as the engine would. */
  const send = async (body = "Your code is 123456") => {
    const { message } = await seedMessage(storage, org, {
      channel: "sms",
      smsProvider: "telnyx",
      smsProviderMessageId: null,
    });
    const outbound: OutboundMessage = {
      messageId: message.id,
      channel: "sms",
      sender: "+15550001111",
      phoneNumber: "+15550002222",
      body,
      category: "otp",
      ttlSeconds: 600,
    };
    return { message, result: await provider.dispatch(outbound) };
  };
  const topics = async (id: string) => (await storage.raw.events(id)).map((e) => e.topic);
  return { base, send, topics, inbound };
}

describe("telnyx", () => {
  it("sends JSON with the API key as Bearer and its own webhook URL; data.id is the provider id", async () => {
    const w = await world({ messagingProfileId: "profile-1" });
    const { message, result } = await w.send();
    expect(result).toEqual({ status: "accepted", providerMessageId: fake.sends[0]?.id });
    expect(fake.sends[0]).toMatchObject({
      authorization: `Bearer ${KEY}`,
      contentType: "application/json",
      body: {
        from: "+15550001111",
        to: "+15550002222",
        text: "Your code is 123456",
        webhook_url: `${w.base}/status?m=${message.id}`,
        messaging_profile_id: "profile-1",
      },
    });
  });

  it("a text over 1,530 characters is refused before it leaves; 40300 is a refusal with its code", async () => {
    const w = await world();
    const long = await w.send("x".repeat(1531));
    expect(long.result).toMatchObject({ status: "rejected", error: { code: "upstream_rejected" } });
    expect(fake.sends).toHaveLength(0);
    fake.answerNext("opted_out");
    const blocked = await w.send();
    expect(blocked.result).toMatchObject({
      status: "rejected",
      error: { code: "upstream_rejected", provider: "telnyx", provider_code: "40300" },
    });
  });

  it("signed status webhooks move the message; delivery_unconfirmed and sent change nothing", async () => {
    const w = await world();
    const { message, result } = await w.send();
    const id = result.status === "accepted" ? String(result.providerMessageId) : "";
    expect(await fake.status(id, "sent")).toEqual({ status: 200, body: "" });
    expect(await fake.status(id, "delivery_unconfirmed")).toEqual({ status: 200, body: "" });
    expect(await w.topics(message.id)).not.toContain("message.delivered");
    expect((await fake.status(id, "delivered")).status).toBe(200);
    expect((await w.topics(message.id)).at(-1)).toBe("message.delivered");
  });

  it("a forged, tampered, stale or unsigned webhook is 403 and changes nothing", async () => {
    const w = await world();
    const { message, result } = await w.send();
    const id = result.status === "accepted" ? String(result.providerMessageId) : "";
    const before = await w.topics(message.id);
    // Signed with another account's key: a well-formed signature that does not verify.
    const otherKey = generateKeyPairSync("ed25519").privateKey;
    const forged = sign(
      null,
      Buffer.from(`${Math.floor(Date.now() / 1000)}|{}`),
      otherKey,
    ).toString("base64");
    for (const options of [
      { signature: forged },
      { signature: null },
      { tamper: true },
      { timestampOffsetSeconds: -301 },
    ]) {
      expect((await fake.status(id, "delivered", options)).status).toBe(403);
    }
    expect(await w.topics(message.id)).toEqual(before);
  });

  it("sending_failed and delivery_failed fail the message with Telnyx's code; expired expires it", async () => {
    const w = await world();
    const first = await w.send();
    const id = first.result.status === "accepted" ? String(first.result.providerMessageId) : "";
    const errors = [
      { code: "40001", title: "Not routable", detail: "The destination is not routable." },
    ];
    await fake.status(id, "delivery_failed", { errors });
    expect((await w.topics(first.message.id)).at(-1)).toBe("message.failed");
    const second = await w.send();
    const other =
      second.result.status === "accepted" ? String(second.result.providerMessageId) : "";
    await fake.status(other, "expired");
    expect((await w.topics(second.message.id)).at(-1)).toBe("message.expired");
  });

  it("an inbound message.received goes to the sink; a tampered one is 403 and goes nowhere", async () => {
    const w = await world();
    const sent = { from: "+15550002222", to: "+15550001111", text: "STOP", id: "in-1" };
    expect((await fake.inbound(`${w.base}/inbound`, sent, { tamper: true })).status).toBe(403);
    expect(w.inbound).toEqual([]);
    expect(await fake.inbound(`${w.base}/inbound`, sent)).toEqual({ status: 200, body: "" });
    expect(w.inbound).toMatchObject([
      {
        provider: "telnyx",
        providerMessageId: "in-1",
        channel: "sms",
        from: "+15550002222",
        to: "+15550001111",
        text: "STOP",
      },
    ]);
  });

  it("the public key must be 32 bytes of base64; a timestamp must be whole seconds", async () => {
    fake = await startFakeTelnyx({ apiKey: KEY });
    expect(telnyxPublicKey(Buffer.alloc(31).toString("base64"))).toBeNull();
    expect(telnyxPublicKey("not base64!")).toBeNull();
    const key = telnyxPublicKey(fake.publicKey);
    expect(key).not.toBeNull();
    if (key === null) return;
    const verdict = verifyTelnyxWebhook({ signature: "x", timestamp: "NaN" }, "{}", {
      publicKey: key,
      nowMs: Date.now(),
    });
    expect(verdict).toEqual({ ok: false, reason: "stale" });
  });

  it("providers check reads the balance with the API key, and says when it is refused", async () => {
    fake = await startFakeTelnyx({ apiKey: KEY });
    expect(
      await checkTelnyxCredentials(
        { apiKey: KEY, apiUrl: fake.url },
        { timeoutMs: 10_000, transport: fetchTransport },
      ),
    ).toEqual({
      outcome: "ok",
      detail: "Telnyx balance 300.00 USD.",
    });
    expect(
      await checkTelnyxCredentials(
        { apiKey: "wrong", apiUrl: fake.url },
        { timeoutMs: 10_000, transport: fetchTransport },
      ),
    ).toMatchObject({
      outcome: "refused",
    });
  });
});
