import {
  postTwilioInbound,
  startFakeTwilio,
  twilioInboundForm,
} from "@tidings/adapter-twilio/testing";
import { cleanupsEach } from "@tidings/core/testing";
import twilio from "twilio";
import { expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { runCli } from "./testing/run-cli.js";
import { parseExposition } from "./testing/scrape.js";
import { serveTidings } from "./testing/served-tidings.js";
import { startWebhookTally } from "./testing/webhook-tally.js";

// Issue 34 through the real server: `tidings serve` with SMS on Twilio (a loopback fake of it)
// and Viber left on the sandbox. A send reaches the fake as Twilio's form, the fake's signed
// status callback comes back through /providers/twilio, and message.delivered reaches a
// signed webhook receiver; a forged callback changes nothing.

const cleanups = cleanupsEach();
const ACCOUNT = `AC${"1".repeat(32)}`;
const TOKEN = "serve-test-auth-token";

it("send → the fake Twilio gets the right request → its callback → message.delivered, signed", {
  timeout: 60_000,
}, async () => {
  const fake = await startFakeTwilio({
    accountSid: ACCOUNT,
    authToken: TOKEN,
    sign: twilio.getExpectedTwilioSignature,
  });
  cleanups.push(() => fake.close());
  const tidings = await serveTidings(
    {
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
      TIDINGS_TWILIO_AUTH_TOKEN: TOKEN,
      TIDINGS_TWILIO_API_URL: fake.url,
      TIDINGS_TWILIO_FETCH_PRICE: "1",
      TIDINGS_TWILIO_PRICE_DELAY_MS: "20",
    },
    { scopes: "profiles:read,profiles:write,messages:send,messages:read,webhooks:manage" },
  );
  cleanups.push(() => tidings.stop());
  const listening = await tidings.waitForLog("listening");
  expect(listening.providers).toEqual({ viber: "sandbox", sms: "twilio" });

  const hook = await tidings.call("POST", "/v1/webhooks", {
    url: "http://127.0.0.1:1/placeholder",
    topics: ["message.delivered", "message.failed"],
  });
  const { webhook_id, signing_secret } = (await hook.json()) as Record<string, string>;
  const tally = await startWebhookTally(String(signing_secret));
  cleanups.push(() => tally.close());
  await tidings.call("PATCH", `/v1/webhooks/${webhook_id}`, { url: tally.url });

  const sent = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: tidings.campaignId,
    recipient: { type: "phone_number", value: "+14155550123" },
    params: { pin: "424242" },
  });
  expect(sent.status).toBe(200);
  const { message_id, status } = (await sent.json()) as Record<string, string>;
  expect(status).toBe("sent");

  // What Twilio received: its form, with the callback URL on this server.
  expect(fake.sends).toHaveLength(1);
  const [request] = fake.sends;
  expect(request?.form).toEqual({
    To: "+14155550123",
    From: "Acme",
    Body: "Your code is 424242",
    ValidityPeriod: expect.stringMatching(/^\d+$/),
    StatusCallback: `${tidings.url}/providers/twilio/status?m=${message_id}`,
  });
  const sid = String(request?.sid);

  // The operator view shows Twilio's sid.
  const view = (await (await tidings.call("GET", `/v1/messages/${message_id}`)).json()) as Record<
    string,
    unknown
  >;
  expect(view).toMatchObject({ provider: "twilio", provider_message_id: sid, status: "sent" });

  // A forged callback is refused and changes nothing; the sandbox does not report this message.
  const forged = await fake.callback(
    sid,
    "delivered",
    {},
    { signature: "AAAAAAAAAAAAAAAAAAAAAAAAAAA=" },
  );
  expect(forged.status).toBe(403);
  const unsigned = await fake.callback(sid, "delivered", {}, { signature: null });
  expect(unsigned.status).toBe(403);
  const sandbox = await tidings.call("POST", `/sandbox/messages/${message_id}/report`, {
    status: "delivered",
  });
  expect(sandbox.status).toBe(404);

  // Twilio's own sequence of callbacks, signed by the official package.
  expect((await fake.callback(sid, "sent")).status).toBe(200);
  const delivered = await fake.callback(sid, "delivered");
  expect([delivered.status, delivered.body]).toEqual([200, ""]);
  expect((await fake.callback(sid, "delivered")).status).toBe(200);

  const webhook = await eventually("message.delivered at the receiver", async () =>
    tally.received.find((r) => r.topic === "message.delivered" && r.messageId === message_id),
  );
  expect(webhook.verified).toBe(true);
  const events = (await (await tidings.call("GET", `/v1/messages/${message_id}`)).json()) as {
    events: Array<{ topic: string }>;
    status: string;
  };
  expect(events.status).toBe("delivered");
  expect(events.events.map((e) => e.topic)).toEqual(["message.sent", "message.delivered"]);
  expect(tally.received.filter((r) => r.topic === "message.delivered")).toHaveLength(1);

  // TIDINGS_TWILIO_FETCH_PRICE=1: the Message resource is read after the final status (once,
  // though "delivered" came twice); while Twilio has no price yet it is read again later.
  await eventually(
    "the first read of the price",
    async () => fake.messageReads.length > 0 || undefined,
  );
  expect(fake.messageReads).toEqual([sid]);
  fake.setPrice(sid, "-0.00790", "USD");
  const priced = await eventually("the price in the view", async () => {
    const again = (await (await tidings.call("GET", `/v1/messages/${message_id}`)).json()) as {
      price: unknown;
    };
    return again.price === null ? undefined : again;
  });
  expect(priced).toMatchObject({
    price: { amount: "0.0079", currency: "USD" },
    prices: [{ channel: "sms", provider: "twilio", amount: "0.0079", currency: "USD" }],
  });
  expect(fake.messageReads).toEqual([sid, sid]);

  // The request to Twilio is counted and timed (the sandbox's Viber channel makes none).
  const exposition = await (await fetch(`${tidings.url}/metrics`)).text();
  const samples = parseExposition(exposition);
  expect(exposition).toContain("tidings_provider_requests_total");
  const sample = (name: string, labels: Record<string, string>) =>
    samples.find(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    )?.value;
  expect(
    sample("tidings_provider_requests_total", {
      provider: "twilio",
      channel: "sms",
      outcome: "accepted",
    }),
  ).toBe(1);
  expect(
    sample("tidings_provider_request_duration_seconds_count", {
      provider: "twilio",
      channel: "sms",
    }),
  ).toBe(1);
  expect(
    sample("tidings_message_price_total", { provider: "twilio", currency: "USD", country: "US" }),
  ).toBe(0.0079);
});

it("a Twilio opt-out refusal (21610) at send fails the message recipient_opted_out, naming Twilio and its code, and suppresses the number", {
  timeout: 60_000,
}, async () => {
  const fake = await startFakeTwilio({
    accountSid: ACCOUNT,
    authToken: TOKEN,
    sign: twilio.getExpectedTwilioSignature,
  });
  cleanups.push(() => fake.close());
  const tidings = await serveTidings({
    TIDINGS_PROVIDER_SMS: "twilio",
    TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
    TIDINGS_TWILIO_AUTH_TOKEN: TOKEN,
    TIDINGS_TWILIO_API_URL: fake.url,
  });
  cleanups.push(() => tidings.stop());
  fake.answerNext("opted_out");
  const sent = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: tidings.campaignId,
    recipient: { type: "phone_number", value: "+14155550124" },
    params: { pin: "111111" },
  });
  expect(sent.status).toBe(200);
  expect(await sent.json()).toMatchObject({
    status: "failed",
    error: { code: "recipient_opted_out", provider: "twilio", provider_code: "21610" },
  });
  // The refusal suppressed the number: the next send is refused before anything is stored.
  const again = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: tidings.campaignId,
    recipient: { type: "phone_number", value: "+14155550124" },
    params: { pin: "222222" },
  });
  expect(again.status).toBe(403);
  expect(await again.json()).toMatchObject({ code: "recipient_opted_out" });
});

it("a Messaging Service's pool number, as Twilio's callback reports it, owns the STOP sent to it: only the organization that sent from it", {
  timeout: 90_000,
}, async () => {
  const POOL = ["+15005550101", "+15005550102"];
  const PERSON = "+14155550126";
  const fake = await startFakeTwilio({
    accountSid: ACCOUNT,
    authToken: TOKEN,
    sign: twilio.getExpectedTwilioSignature,
    messagingServicePool: POOL,
  });
  cleanups.push(() => fake.close());
  const scopes = "profiles:read,profiles:write,messages:send,messages:read,campaigns:manage";
  const tidings = await serveTidings(
    {
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
      TIDINGS_TWILIO_AUTH_TOKEN: TOKEN,
      TIDINGS_TWILIO_API_URL: fake.url,
      TIDINGS_TWILIO_MESSAGING_SERVICE_SID: `MG${"4".repeat(32)}`,
    },
    { scopes },
  );
  cleanups.push(() => tidings.stop());
  const cli = async (...args: string[]) => {
    const run = await runCli([...args, "--json"], tidings.env);
    if (run.code !== 0) throw new Error(`tidings ${args.join(" ")}: ${run.stderr}`);
    return run.json<Record<string, string>>();
  };
  const { org_id: orgB = "" } = await cli("orgs", "create", "--name", "Other");
  const { token: tokenB } = await cli("keys", "create", "--org", orgB, "--scopes", scopes);
  const asB = (method: string, path: string, body?: unknown) =>
    fetch(`${tidings.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokenB}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const promotional = {
    name: "Offers",
    channel: "sms",
    category: "promotional",
    sender: "+15005550006",
    template: "Offer",
    status: "active",
  };
  const profile = { phone_number: PERSON, sms_marketing_consent: true };
  // Each organization sends to the same person through the Messaging Service, whose pool picks
  // a number for each: A's message goes out from POOL[0], B's from POOL[1].
  const sends: Array<(path: string, body?: unknown) => Promise<Response>> = [
    (path, body) => tidings.call(body === undefined ? "GET" : "POST", path, body),
    (path, body) => asB(body === undefined ? "GET" : "POST", path, body),
  ];
  const publicIds: string[] = [];
  for (const call of sends) {
    const created = (await (await call("/v1/campaigns", promotional)).json()) as {
      campaign_id: string;
    };
    const person = (await (await call("/v1/profiles", profile)).json()) as { public_id: string };
    publicIds.push(person.public_id);
    const sent = await call("/v1/messages/send", {
      campaign_id: created.campaign_id,
      recipient: { type: "phone_number", value: PERSON },
    });
    expect(sent.status).toBe(200);
  }
  expect(fake.sends.map((s) => s.form.From)).toEqual([undefined, undefined]);
  const [sidA, sidB] = fake.sends.map((s) => s.sid ?? "");
  const stopTo = (to: string) =>
    postTwilioInbound(
      `${tidings.url}/providers/twilio/inbound`,
      TOKEN,
      twilioInboundForm({ from: PERSON, to, body: "STOP" }),
      { sign: twilio.getExpectedTwilioSignature },
    );
  const consentOf = async (call: (typeof sends)[number], publicId: string) =>
    ((await (await call(`/v1/profiles/${publicId}`)).json()) as { sms_marketing_consent: boolean })
      .sms_marketing_consent;

  // Before Twilio says which number it used, nobody sent from the pool number: nothing stored.
  expect((await stopTo(POOL[0] ?? "")).status).toBe(200);
  expect(await consentOf(sends[0]!, publicIds[0]!)).toBe(true);

  // The `sent` callbacks give each message's pool number as `From`.
  expect((await fake.callback(sidA ?? "", "sent")).status).toBe(200);
  expect((await fake.callback(sidB ?? "", "sent")).status).toBe(200);
  expect((await stopTo(POOL[0] ?? "")).status).toBe(200);
  expect(await consentOf(sends[0]!, publicIds[0]!)).toBe(false);
  const inboundA = (await (await tidings.call("GET", "/v1/inbound")).json()) as {
    data: Array<{ to: string; keyword_class: string }>;
  };
  expect(inboundA.data).toEqual([
    expect.objectContaining({ to: POOL[0], keyword_class: "opt_out" }),
  ]);
  // B sent from the other pool number: its consent stands and it saw nothing.
  expect(await consentOf(sends[1]!, publicIds[1]!)).toBe(true);
  expect(((await (await asB("GET", "/v1/inbound")).json()) as { data: unknown[] }).data).toEqual(
    [],
  );
  expect(
    ((await (await asB("GET", "/v1/suppressions")).json()) as { data: unknown[] }).data,
  ).toEqual([]);
  // A's next send is refused; B's still goes out.
  const again = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: tidings.campaignId,
    recipient: { type: "phone_number", value: PERSON },
    params: { pin: "333333" },
  });
  expect(again.status).toBe(403);
});

it("Twilio out of reach: the answer names the cause and that nothing was sent; one warn line per request", {
  timeout: 60_000,
}, async () => {
  const tidings = await serveTidings({
    TIDINGS_PROVIDER_SMS: "twilio",
    TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
    TIDINGS_TWILIO_AUTH_TOKEN: TOKEN,
    // `.invalid` never resolves (RFC 6761), with or without a network.
    TIDINGS_TWILIO_API_URL: "http://api.twilio.invalid",
  });
  cleanups.push(() => tidings.stop());
  const sent = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: tidings.campaignId,
    recipient: { type: "phone_number", value: "+14155550125" },
    params: { pin: "222222" },
  });
  expect(sent.status).toBe(200);
  const body = (await sent.json()) as { status: string; error: { code: string; message: string } };
  expect(body).toMatchObject({ status: "failed", error: { code: "upstream_unavailable" } });
  expect(body.error.message).toMatch(/(ENOTFOUND|EAI_AGAIN) api\.twilio\.invalid/);
  expect(body.error.message).toContain("nothing was sent");
  expect(body.error.message).not.toContain(TOKEN);
  const warned = await tidings.waitForLog("provider request failed");
  expect(warned).toMatchObject({
    level: "warn",
    provider: "twilio",
    channel: "sms",
    outcome: "unavailable",
    cause: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/),
  });
  expect(JSON.stringify(tidings.logs())).not.toContain(TOKEN);
});
