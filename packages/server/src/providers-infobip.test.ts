import { randomBytes } from "node:crypto";
import { startFakeInfobip } from "@tidings/adapter-infobip/testing";
import { startFakeTwilio } from "@tidings/adapter-twilio/testing";
import { cleanupsEach } from "@tidings/core/testing";
import pg from "pg";
import twilio from "twilio";
import { expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import {
  expectOptedOutByProvider,
  OPT_OUT_SCOPES,
  sendToConsentingProfile,
} from "./testing/provider-opt-out.js";
import { serveTidings } from "./testing/served-tidings.js";
import { startWebhookTally } from "./testing/webhook-tally.js";

// Issue 34 through the real server: Viber on Infobip and SMS on Twilio (loopback fakes of both)
// in one `tidings serve`. A Viber send reaches the fake Infobip as its ViberRequest with the
// leg's tokened callback URLs; its delivery and seen reports come back through
// /providers/infobip and become signed message.delivered and message.seen webhooks; a forged
// token changes nothing and the token never reaches the request log.

const cleanups = cleanupsEach();
const API_KEY = "serve-test-infobip-key";
const ACCOUNT = `AC${"2".repeat(32)}`;
const TOKEN = "serve-test-twilio-token";
const SCOPES =
  "profiles:read,profiles:write,messages:send,messages:read,webhooks:manage,campaigns:manage";
const pgUrl = process.env.TIDINGS_TEST_PG_URL;

/**
 * A fresh PostgreSQL schema for `serve` when TIDINGS_TEST_PG_URL is set (dropped after the
 * test), else nothing: SQLite, like the other cases here.
 */
function storageEnv(): Record<string, string> {
  if (pgUrl === undefined) return {};
  const schema = `prices_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: pgUrl, max: 1 });
  admin.on("error", () => undefined);
  cleanups.push(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  return {
    TIDINGS_DATABASE_URL: `${pgUrl}${pgUrl.includes("?") ? "&" : "?"}schema=${schema}`,
    TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
  };
}

it("Viber on Infobip, SMS on Twilio: each send goes to its provider; Infobip's reports become signed webhooks", {
  timeout: 60_000,
}, async () => {
  const infobip = await startFakeInfobip({ apiKey: API_KEY });
  cleanups.push(() => infobip.close());
  const fakeTwilio = await startFakeTwilio({
    accountSid: ACCOUNT,
    authToken: TOKEN,
    sign: twilio.getExpectedTwilioSignature,
  });
  cleanups.push(() => fakeTwilio.close());
  const tidings = await serveTidings(
    {
      TIDINGS_PROVIDER_VIBER: "infobip",
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_INFOBIP_BASE_URL: infobip.url,
      TIDINGS_INFOBIP_API_KEY: API_KEY,
      TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
      TIDINGS_TWILIO_AUTH_TOKEN: TOKEN,
      TIDINGS_TWILIO_API_URL: fakeTwilio.url,
    },
    { scopes: SCOPES },
  );
  cleanups.push(() => tidings.stop());
  expect((await tidings.waitForLog("listening")).providers).toEqual({
    viber: "infobip",
    sms: "twilio",
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
    name: "Shipping",
    channel: "viber",
    category: "transactional",
    sender: "AcmeShop",
    template: "Order {{order}} has shipped",
    status: "active",
  });
  const campaign = (await created.json()) as { campaign_id: string };
  expect(created.status, JSON.stringify(campaign)).toBe(201);
  const sent = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: campaign.campaign_id,
    recipient: { type: "phone_number", value: "+41793026727" },
    params: { order: "A-1001" },
  });
  const { message_id, status, ...rest } = (await sent.json()) as Record<string, string>;
  expect(status, JSON.stringify(rest)).toBe("sent");

  expect(infobip.sends).toHaveLength(1);
  expect(infobip.sends[0]).toMatchObject({
    path: "/viber/2/messages",
    authorization: `App ${API_KEY}`,
    body: {
      messages: [
        {
          sender: "AcmeShop",
          destinations: [{ to: "41793026727", messageId: message_id }],
          content: { type: "TEXT", text: "Order A-1001 has shipped" },
          options: { label: "TRANSACTIONAL" },
        },
      ],
    },
  });
  const urls = infobip.urlsOf(String(message_id));
  expect(urls.delivery).toMatch(
    new RegExp(`^${tidings.url}/providers/infobip/${message_id}\\.[A-Za-z0-9_-]{22}/delivery$`),
  );

  // A forged token is a 404 that changes nothing.
  const forged = await infobip.deliver(
    [{ messageId: String(message_id), groupName: "UNDELIVERABLE" }],
    { url: urls.delivery.replace(/\.[A-Za-z0-9_-]{22}\//, `.${"A".repeat(22)}/`) },
  );
  expect(forged.status).toBe(404);

  const delivered = await infobip.deliver([
    { messageId: String(message_id), groupName: "DELIVERED" },
  ]);
  expect([delivered.status, delivered.body]).toEqual([200, ""]);
  expect((await infobip.seen(String(message_id))).status).toBe(200);

  for (const topic of ["message.delivered", "message.seen"]) {
    const received = await eventually(`${topic} at the receiver`, async () =>
      tally.received.find((r) => r.topic === topic && r.messageId === message_id),
    );
    expect(received.verified).toBe(true);
  }
  const view = (await (await tidings.call("GET", `/v1/messages/${message_id}`)).json()) as Record<
    string,
    unknown
  >;
  expect(view).toMatchObject({
    status: "seen",
    channel: "viber",
    provider: "infobip",
    provider_message_id: message_id,
  });

  // The SMS campaign goes to Twilio from the same server.
  const sms = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: tidings.campaignId,
    recipient: { type: "phone_number", value: "+41793026728" },
    params: { pin: "9876" },
  });
  expect(((await sms.json()) as Record<string, string>).status).toBe("sent");
  expect(fakeTwilio.sends).toHaveLength(1);
  expect(infobip.sends).toHaveLength(1);

  // The request log shows the callback's route, never its token.
  const token = urls.delivery.split("/").at(-2)?.split(".").at(-1) ?? "";
  const logged = JSON.stringify(tidings.logs());
  expect(logged).toContain("/providers/infobip/{leg}/delivery");
  expect(logged).not.toContain(token);
});

it("Viber on Infobip reported undeliverable → the SMS goes out on Twilio → message.delivered by SMS, no message.failed; each leg's price kept (on PostgreSQL when given)", {
  timeout: 60_000,
}, async () => {
  const infobip = await startFakeInfobip({ apiKey: API_KEY });
  cleanups.push(() => infobip.close());
  const fakeTwilio = await startFakeTwilio({
    accountSid: ACCOUNT,
    authToken: TOKEN,
    sign: twilio.getExpectedTwilioSignature,
  });
  cleanups.push(() => fakeTwilio.close());
  const tidings = await serveTidings(
    {
      TIDINGS_PROVIDER_VIBER: "infobip",
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_INFOBIP_BASE_URL: infobip.url,
      TIDINGS_INFOBIP_API_KEY: API_KEY,
      TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
      TIDINGS_TWILIO_AUTH_TOKEN: TOKEN,
      TIDINGS_TWILIO_API_URL: fakeTwilio.url,
      TIDINGS_TWILIO_FETCH_PRICE: "1",
      TIDINGS_TWILIO_PRICE_DELAY_MS: "20",
      ...storageEnv(),
    },
    { scopes: SCOPES },
  );
  cleanups.push(() => tidings.stop());
  const hook = await tidings.call("POST", "/v1/webhooks", {
    url: "http://127.0.0.1:1/placeholder",
    topics: ["message.delivered", "message.failed"],
  });
  const { webhook_id, signing_secret } = (await hook.json()) as Record<string, string>;
  const tally = await startWebhookTally(String(signing_secret));
  cleanups.push(() => tally.close());
  await tidings.call("PATCH", `/v1/webhooks/${webhook_id}`, { url: tally.url });

  const created = await tidings.call("POST", "/v1/campaigns", {
    name: "Codes with fallback",
    channel: "viber",
    category: "otp",
    sender: "AcmeShop",
    template: "Your code is {{pin}}",
    sms_fallback: true,
    sms_sender: "AcmeSMS",
    ttl_seconds: 600,
    status: "active",
  });
  const { campaign_id } = (await created.json()) as { campaign_id: string };
  const sent = await tidings.call("POST", "/v1/messages/send", {
    campaign_id,
    recipient: { type: "phone_number", value: "+41793026729" },
    params: { pin: "5555" },
  });
  const { message_id } = (await sent.json()) as Record<string, string>;
  const id = String(message_id);
  // The Viber leg got half the TTL, so the SMS has the rest.
  expect(infobip.sends[0]?.body).toMatchObject({
    messages: [{ options: { validityPeriod: { amount: 300, timeUnit: "SECONDS" } } }],
  });

  const report = await infobip.deliver([
    {
      messageId: id,
      groupName: "UNDELIVERABLE",
      error: { id: 7002, name: "EC_UNKNOWN_USER", description: "User is not a Viber user" },
      price: { pricePerMessage: 0.0125, currency: "EUR" },
    },
  ]);
  expect([report.status, report.body]).toEqual([200, ""]);

  const sms = await eventually("the fallback SMS at Twilio", async () => fakeTwilio.sends[0]);
  expect(sms.form).toMatchObject({
    To: "+41793026729",
    From: "AcmeSMS",
    Body: "Your code is 5555",
    StatusCallback: `${tidings.url}/providers/twilio/status?m=${id}`,
  });
  expect(Number(sms.form.ValidityPeriod)).toBeLessThanOrEqual(600);
  // A late report of the Viber leg is ignored, and its other price with it: a leg is priced once.
  expect(
    (
      await infobip.deliver([
        { messageId: id, groupName: "DELIVERED", price: { pricePerMessage: 9, currency: "EUR" } },
      ])
    ).status,
  ).toBe(200);
  // Twilio's price comes from its Message resource, read after the final status; a charge is
  // negative there.
  fakeTwilio.setPrice(String(sms.sid), "-0.00750", "USD");
  expect((await fakeTwilio.callback(String(sms.sid), "delivered")).status).toBe(200);

  const delivered = await eventually("message.delivered at the receiver", async () =>
    tally.received.find((r) => r.topic === "message.delivered" && r.messageId === id),
  );
  expect(delivered.verified).toBe(true);
  const view = (await (await tidings.call("GET", `/v1/messages/${id}`)).json()) as {
    events: Array<{ topic: string; channel: string }>;
  } & Record<string, unknown>;
  expect(view).toMatchObject({
    status: "delivered",
    channel: "sms",
    provider: "twilio",
    provider_message_id: sms.sid,
  });
  expect(view.events.map((e) => [e.topic, e.channel])).toEqual([
    ["message.sent", "viber"],
    ["message.delivered", "sms"],
  ]);
  expect(tally.received.filter((r) => r.topic === "message.failed")).toHaveLength(0);

  // Two legs in two currencies: no sum, each leg's own price.
  const priced = await eventually("the SMS leg's price", async () => {
    const again = (await (await tidings.call("GET", `/v1/messages/${id}`)).json()) as {
      prices: unknown[];
    } & Record<string, unknown>;
    return again.prices.length === 2 ? again : undefined;
  });
  expect(priced).toMatchObject({
    price: null,
    prices: [
      { channel: "viber", provider: "infobip", amount: "0.0125", currency: "EUR" },
      { channel: "sms", provider: "twilio", amount: "0.0075", currency: "USD" },
    ],
  });
  expect(fakeTwilio.messageReads).toEqual([sms.sid]);
  const listed = (await (await tidings.call("GET", "/v1/messages?limit=1")).json()) as {
    data: Array<Record<string, unknown>>;
  };
  expect(listed.data[0]).toMatchObject({ message_id: id, price: null, prices: priced.prices });
  const metrics = await (await fetch(`${tidings.url}/metrics`)).text();
  expect(metrics).toContain(
    'tidings_message_price_total{provider="infobip",currency="EUR",country="CH"} 0.0125',
  );
  expect(metrics).toContain(
    'tidings_message_price_total{provider="twilio",currency="USD",country="CH"} 0.0075',
  );
});

it("SMS on Infobip: reports meaning the recipient opted out or is blocklisted suppress the number and turn its consent off", {
  timeout: 60_000,
}, async () => {
  const infobip = await startFakeInfobip({ apiKey: API_KEY });
  cleanups.push(() => infobip.close());
  const tidings = await serveTidings(
    {
      TIDINGS_PROVIDER_SMS: "infobip",
      TIDINGS_INFOBIP_BASE_URL: infobip.url,
      TIDINGS_INFOBIP_API_KEY: API_KEY,
    },
    { scopes: OPT_OUT_SCOPES },
  );
  cleanups.push(() => tidings.stop());
  // A REJECTED status naming the blocklist, and an error naming an opt-out by STOP.
  const reports = [
    { groupName: "REJECTED" as const, name: "REJECTED_DESTINATION_BLOCKLISTED" },
    {
      groupName: "UNDELIVERABLE" as const,
      error: { id: 603, name: "EC_CONTENT_BLOCKED", description: "Content blocked by opt-out" },
    },
  ];
  for (const [index, report] of reports.entries()) {
    const phone = `+4179302671${index}`;
    const sent = await sendToConsentingProfile(tidings, phone);
    const body = infobip.sends.at(-1)?.body as
      | { messages: Array<{ destinations: Array<{ messageId: string }> }> }
      | undefined;
    const legId = String(body?.messages[0]?.destinations[0]?.messageId);
    expect((await infobip.deliver([{ messageId: legId, ...report }])).status).toBe(200);
    const code = report.error?.name ?? report.name ?? "";
    await expectOptedOutByProvider(tidings, { ...sent, phone }, "infobip", code);
  }
});
