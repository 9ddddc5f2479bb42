import { generateKeyPairSync } from "node:crypto";
import { startFakeVonage } from "@tidings/adapter-vonage/testing";
import { cleanupsEach } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import {
  expectOptedOutByProvider,
  OPT_OUT_SCOPES,
  sendToConsentingProfile,
} from "./testing/provider-opt-out.js";
import { serveTidings } from "./testing/served-tidings.js";
import { startWebhookTally } from "./testing/webhook-tally.js";

// Issue 34 through the real server: Viber on Vonage (a loopback fake of its Messages API) while
// SMS stays on the sandbox. The send carries an RS256 application JWT; Vonage's status
// webhooks, HS256-signed over the body's hash by `jose`, come back through /providers/vonage
// and become signed message.delivered and message.seen webhooks; unsigned, tampered and stale
// ones change nothing.

const cleanups = cleanupsEach();
const APP = "aaaaaaaa-bbbb-cccc-dddd-0123456789ab";
const SCOPES =
  "profiles:read,profiles:write,messages:send,messages:read,webhooks:manage,campaigns:manage";
const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});

/** A fake Vonage and `tidings serve` sending `channel` through it, both stopped after the test. */
async function serveOnVonage(channel: "viber" | "sms", scopes: string) {
  const vonage = await startFakeVonage({
    applicationId: APP,
    privateKey,
    signatureSecret: "serve-test-signature-secret",
    apiKey: "abcd1234",
  });
  cleanups.push(() => vonage.close());
  const tidings = await serveTidings(
    {
      [channel === "viber" ? "TIDINGS_PROVIDER_VIBER" : "TIDINGS_PROVIDER_SMS"]: "vonage",
      TIDINGS_VONAGE_APPLICATION_ID: APP,
      // As an env file holds it: one line, newlines written \n.
      TIDINGS_VONAGE_PRIVATE_KEY: privateKey.replace(/\n/g, "\\n"),
      TIDINGS_VONAGE_SIGNATURE_SECRET: "serve-test-signature-secret",
      TIDINGS_VONAGE_API_KEY: "abcd1234",
      TIDINGS_VONAGE_API_URL: vonage.url,
    },
    { scopes },
  );
  cleanups.push(() => tidings.stop());
  return { vonage, tidings };
}

it("Viber on Vonage: send with an application JWT → signed status webhooks → message.delivered and message.seen", {
  timeout: 60_000,
}, async () => {
  const { vonage, tidings } = await serveOnVonage("viber", SCOPES);
  expect((await tidings.waitForLog("listening")).providers).toEqual({
    viber: "vonage",
    sms: "sandbox",
  });

  const hook = await tidings.call("POST", "/v1/webhooks", {
    url: "http://127.0.0.1:1/placeholder",
    topics: ["message.delivered", "message.seen", "message.failed"],
  });
  const { webhook_id, signing_secret } = (await hook.json()) as Record<string, string>;
  const tally = await startWebhookTally(String(signing_secret));
  cleanups.push(() => tally.close());
  await tidings.call("PATCH", `/v1/webhooks/${webhook_id}`, { url: tally.url });

  const created = await tidings.call("POST", "/v1/campaigns", {
    name: "Viber codes",
    channel: "viber",
    category: "otp",
    sender: "16273",
    template: "Your code is {{pin}}",
    status: "active",
  });
  expect(created.status).toBe(201);
  const { campaign_id } = (await created.json()) as { campaign_id: string };
  const sent = await tidings.call("POST", "/v1/messages/send", {
    campaign_id,
    recipient: { type: "phone_number", value: "+447911123456" },
    params: { pin: "123456" },
  });
  const { message_id, status, ...problem } = (await sent.json()) as Record<string, string>;
  expect(status, JSON.stringify(problem)).toBe("sent");
  expect(vonage.sends).toHaveLength(1);
  const [request] = vonage.sends;
  expect(request?.claims).toMatchObject({ application_id: APP });
  expect(request?.body).toEqual({
    channel: "viber_service",
    message_type: "text",
    to: "447911123456",
    from: "16273",
    text: "Your code is 123456",
    client_ref: message_id,
    webhook_url: `${tidings.url}/providers/vonage/status`,
    viber_service: { category: "transaction", ttl: expect.any(Number) },
  });
  const uuid = String(request?.messageUuid);

  // Unsigned: 503 so Vonage retries; tampered or stale: 403. None changes anything.
  expect((await vonage.status(uuid, "delivered", {}, { signature: null })).status).toBe(503);
  expect((await vonage.status(uuid, "delivered", {}, { tamper: true })).status).toBe(403);
  expect((await vonage.status(uuid, "delivered", {}, { iatOffsetSeconds: -600 })).status).toBe(403);

  // Vonage's `usage` may ride on `submitted`, which changes nothing else; a later one (here on
  // `delivered`) repeats it and is not counted again.
  const usage = { usage: { currency: "EUR", price: "0.0333" } };
  expect((await vonage.status(uuid, "submitted", usage)).status).toBe(200);
  const delivered = await vonage.status(uuid, "delivered", usage);
  expect([delivered.status, delivered.body]).toEqual([200, ""]);
  expect((await vonage.status(uuid, "read")).status).toBe(200);

  for (const topic of ["message.delivered", "message.seen"]) {
    const received = await eventually(`${topic} at the receiver`, async () =>
      tally.received.find((r) => r.topic === topic && r.messageId === message_id),
    );
    expect(received.verified).toBe(true);
  }
  const view = (await (await tidings.call("GET", `/v1/messages/${message_id}`)).json()) as {
    events: Array<{ topic: string }>;
  } & Record<string, unknown>;
  expect(view).toMatchObject({
    status: "seen",
    provider: "vonage",
    provider_message_id: uuid,
    price: { amount: "0.0333", currency: "EUR" },
    prices: [{ channel: "viber", provider: "vonage", amount: "0.0333", currency: "EUR" }],
  });
  expect(await (await fetch(`${tidings.url}/metrics`)).text()).toContain(
    'tidings_message_price_total{provider="vonage",currency="EUR",country="GG"} 0.0333',
  );
  expect(view.events.map((e) => e.topic)).toEqual([
    "message.sent",
    "message.delivered",
    "message.seen",
  ]);
});

it("SMS on Vonage: a rejected status with 1050 (number barred) suppresses the number and turns its consent off", {
  timeout: 60_000,
}, async () => {
  const { vonage, tidings } = await serveOnVonage("sms", OPT_OUT_SCOPES);
  const phone = "+447911123457";
  const sent = await sendToConsentingProfile(tidings, phone);
  const uuid = String(vonage.sends.at(-1)?.messageUuid);
  const rejected = await vonage.status(uuid, "rejected", {
    error: {
      type: "https://developer.vonage.com/api-errors/messages#1050",
      title: 1050,
      detail: "The number you are trying to submit to is blacklisted and may not receive messages.",
    },
  });
  expect(rejected.status).toBe(200);
  await expectOptedOutByProvider(tidings, { ...sent, phone }, "vonage", "1050");
});
