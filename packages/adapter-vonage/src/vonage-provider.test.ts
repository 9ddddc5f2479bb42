import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import type { ChannelProvider, OutboundMessage } from "@tidings/core";
import { fetchTransport } from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeVonage, startFakeVonage } from "./testing/fake-vonage.js";
import { type VonageProviderOptions, vonageProvider } from "./vonage-provider.js";

const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const APP = "aaaaaaaa-bbbb-cccc-dddd-0123456789ab";
const CALLBACKS = "https://tidings.example.com/providers/vonage";
const ID = "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b";

const viber: OutboundMessage = {
  messageId: ID,
  channel: "viber",
  sender: "16273",
  phoneNumber: "+447700900000",
  body: "Your code is 123456",
  category: "otp",
  ttlSeconds: 600,
};

let fake: FakeVonage;
afterEach(async () => {
  await fake?.close();
});

async function setup(extra: Partial<VonageProviderOptions> = {}): Promise<ChannelProvider> {
  fake = await startFakeVonage({
    applicationId: APP,
    privateKey,
    signatureSecret: "sig-secret",
    apiKey: "abcd1234",
    retryAfterSeconds: 0,
  });
  return vonageProvider({
    transport: fetchTransport,
    applicationId: APP,
    privateKey,
    apiUrl: fake.url,
    callbackBaseUrl: CALLBACKS,
    timeoutMs: 2000,
    random: () => 0,
    ...extra,
  });
}

describe("vonageProvider against a fake Vonage", () => {
  it("sends Viber with an RS256 application JWT; the message_uuid is the provider id", async () => {
    const provider = await setup();
    const result = await provider.dispatch(viber);
    const [sent] = fake.sends;
    expect(result).toEqual({ status: "accepted", providerMessageId: sent?.messageUuid });
    expect(sent?.claims).toMatchObject({ application_id: APP });
    expect(typeof sent?.claims?.jti).toBe("string");
    expect(sent?.body).toEqual({
      channel: "viber_service",
      message_type: "text",
      to: "447700900000",
      from: "16273",
      text: "Your code is 123456",
      client_ref: ID,
      webhook_url: `${CALLBACKS}/status`,
      viber_service: { category: "transaction", ttl: 600 },
    });
  });

  it("sends SMS under the client_ref {id}.sms with the TTL; Promotional Viber is category promotion", async () => {
    const provider = await setup();
    await provider.dispatch({ ...viber, channel: "sms", sender: "Acme", ttlSeconds: 299.9 });
    await provider.dispatch({ ...viber, category: "promotional" });
    // A fallback leg's last seconds and a campaign longer than a week stay within the bounds.
    await provider.dispatch({ ...viber, channel: "sms", sender: "Acme", ttlSeconds: 5 });
    await provider.dispatch({ ...viber, channel: "sms", sender: "Acme", ttlSeconds: 2_000_000 });
    expect(fake.sends.slice(2).map((send) => send.body.ttl)).toEqual([20, 604_800]);
    expect(fake.sends.every((send) => send.messageUuid !== null)).toBe(true);
    expect(fake.sends[0]?.body).toEqual({
      channel: "sms",
      message_type: "text",
      to: "447700900000",
      from: "Acme",
      text: "Your code is 123456",
      client_ref: `${ID}.sms`,
      webhook_url: `${CALLBACKS}/status`,
      ttl: 299,
    });
    expect(fake.sends[0]?.body.viber_service).toBeUndefined();
    expect(fake.sends[1]?.body).toMatchObject({ viber_service: { category: "promotion" } });
  });

  it.each([
    ["invalid_number", "upstream_rejected", "1150"],
    ["unauthorized", "upstream_unauthorized", "1010"],
    ["server_error", "upstream_unavailable", "1030"],
  ] as const)("%s is %s with Vonage's code %s, sent once", async (answer, code, providerCode) => {
    const provider = await setup();
    fake.answerNext(answer);
    expect(await provider.dispatch(viber)).toMatchObject({
      status: "rejected",
      error: { code, provider: "vonage", provider_code: providerCode },
    });
    expect(fake.sends).toHaveLength(1);
  });

  it("a Viber TTL longer than Vonage's 3 days is clamped to 259,200 s, and accepted", async () => {
    const provider = await setup();
    const result = await provider.dispatch({ ...viber, ttlSeconds: 14 * 24 * 3600 });
    expect(result).toMatchObject({ status: "accepted", clampedTtlSeconds: 259_200 });
    expect(fake.sends[0]?.body).toMatchObject({ viber_service: { ttl: 259_200 } });
  });

  it("an SMS from a number goes without + (Vonage takes E.164 without it)", async () => {
    const provider = await setup();
    const result = await provider.dispatch({ ...viber, channel: "sms", sender: "+447700900001" });
    expect(result).toMatchObject({ status: "accepted" });
    expect(fake.sends[0]?.body).toMatchObject({ from: "447700900001" });
  });

  it("a text over Vonage's 1,000 characters is refused before it leaves", async () => {
    const provider = await setup();
    for (const channel of ["viber", "sms"] as const) {
      expect(await provider.dispatch({ ...viber, channel, body: "x".repeat(1001) })).toMatchObject({
        status: "rejected",
        error: { code: "upstream_rejected", provider_code: "text_too_long" },
      });
    }
    expect(fake.sends).toHaveLength(0);
  });

  it("a private key in PKCS #1 (BEGIN RSA PRIVATE KEY) is converted and sends", async () => {
    const pkcs1 = createPrivateKey(privateKey).export({ type: "pkcs1", format: "pem" }).toString();
    expect(pkcs1).toContain("BEGIN RSA PRIVATE KEY");
    const provider = await setup({ privateKey: pkcs1 });
    expect(await provider.dispatch(viber)).toMatchObject({ status: "accepted" });
    expect(fake.sends[0]?.claims).toMatchObject({ application_id: APP });
  });

  it("429 is retried after its Retry-After", async () => {
    const provider = await setup();
    fake.answerNext("rate_limited");
    expect(await provider.dispatch(viber)).toMatchObject({ status: "accepted" });
    expect(fake.sends).toHaveLength(2);
  });

  it("a hang past the deadline is upstream_unavailable and is not sent again", async () => {
    const provider = await setup({ timeoutMs: 300 });
    fake.answerNext("hang");
    expect(await provider.dispatch(viber)).toMatchObject({
      status: "rejected",
      error: { code: "upstream_unavailable" },
    });
    expect(fake.sends).toHaveLength(1);
  });

  it("no connection names its cause, says nothing was sent, and logs one warn line per try", async () => {
    await setup();
    const closed = fake.url;
    await fake.close();
    const warned: Array<Record<string, unknown> | undefined> = [];
    const down = vonageProvider({
      transport: fetchTransport,
      applicationId: APP,
      privateKey,
      apiUrl: closed,
      callbackBaseUrl: CALLBACKS,
      timeoutMs: 2000,
      random: () => 0,
      logger: { error: () => {}, warn: (_msg, fields) => warned.push(fields), info: () => {} },
    });
    const result = await down.dispatch(viber);
    expect(result).toMatchObject({
      status: "rejected",
      error: {
        code: "upstream_unavailable",
        message: expect.stringMatching(/ECONNREFUSED.*nothing was sent/),
      },
    });
    expect(warned.length).toBeGreaterThanOrEqual(1);
    expect(warned[0]).toMatchObject({
      provider: "vonage",
      channel: "viber",
      outcome: "unavailable",
    });
  });
});
