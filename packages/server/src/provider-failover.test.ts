import { generateKeyPairSync } from "node:crypto";
import { startFakeTwilio } from "@tidings/adapter-twilio/testing";
import { startFakeVonage } from "@tidings/adapter-vonage/testing";
import { cleanupsEach } from "@tidings/core/testing";
import twilio from "twilio";
import { expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { parseExposition } from "./testing/scrape.js";
import { serveTidings } from "./testing/served-tidings.js";

// Issue 47 through the real server: SMS on `twilio,vonage`. A Twilio that refuses connections
// hands the message to Vonage at once, from the sender TIDINGS_VONAGE_SENDERS maps, and
// Vonage's signed report finds the leg; a Twilio that times out does not (a duplicate is
// possible), unless TIDINGS_FAILOVER_ON_TIMEOUT=1 says it may. The message view names the
// providers tried before the one that carried the leg, and a TTL clamped. A template longer than the
// providers take is refused when the campaign is activated. One server, restarted per config.

const cleanups = cleanupsEach();
const ACCOUNT = `AC${"a".repeat(32)}`;
const TOKEN = "failover-auth-token";
const APP = "aaaaaaaa-bbbb-cccc-dddd-0123456789ab";
const SECRET = "failover-signature-secret";
const SCOPES =
  "profiles:read,profiles:write,messages:send,messages:read,webhooks:manage,campaigns:manage";
const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});

type View = Record<string, unknown> & { error: Record<string, unknown> | null };

it("SMS on twilio,vonage: fails over at once only when Twilio never got the message, from the mapped sender; limits at activation", {
  timeout: 90_000,
}, async () => {
  const startTwilio = () =>
    startFakeTwilio({
      accountSid: ACCOUNT,
      authToken: TOKEN,
      sign: twilio.getExpectedTwilioSignature,
    });
  let fakeTwilio = await startTwilio();
  cleanups.push(() => fakeTwilio.close());
  const vonage = await startFakeVonage({
    applicationId: APP,
    privateKey,
    signatureSecret: SECRET,
    apiKey: "abcd1234",
  });
  cleanups.push(() => vonage.close());
  const tidings = await serveTidings(
    {
      TIDINGS_PROVIDER_SMS: "twilio,vonage",
      TIDINGS_PROVIDER_TIMEOUT_MS: "1000",
      TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
      TIDINGS_TWILIO_AUTH_TOKEN: TOKEN,
      TIDINGS_TWILIO_API_URL: fakeTwilio.url,
      TIDINGS_VONAGE_APPLICATION_ID: APP,
      TIDINGS_VONAGE_PRIVATE_KEY: privateKey,
      TIDINGS_VONAGE_SIGNATURE_SECRET: SECRET,
      TIDINGS_VONAGE_API_KEY: "abcd1234",
      TIDINGS_VONAGE_API_URL: vonage.url,
      TIDINGS_VONAGE_SENDERS: JSON.stringify({ "+14155550100": "14155550199" }),
    },
    { scopes: SCOPES },
  );
  cleanups.push(() => tidings.stop());
  expect((await tidings.waitForLog("listening")).failover).toEqual({
    viber: ["sandbox"],
    sms: ["twilio", "vonage"],
    on_timeout: false,
  });

  // 14 days: longer than Vonage keeps an SMS (7 days), so its leg says the TTL was clamped.
  const campaign = async (template: string, status: "active" | "inactive" = "active") => {
    const created = await tidings.call("POST", "/v1/campaigns", {
      name: "Codes",
      channel: "sms",
      category: "otp",
      sender: "+14155550100",
      template,
      ttl_seconds: 1_209_600,
      status,
    });
    return { status: created.status, body: (await created.json()) as Record<string, unknown> };
  };
  const send = async (campaignId: string, pin: string): Promise<View> => {
    const sent = await tidings.call("POST", "/v1/messages/send", {
      campaign_id: campaignId,
      recipient: { type: "phone_number", value: "+447911123456" },
      params: { pin },
    });
    const { message_id } = (await sent.json()) as { message_id: string };
    return (await (await tidings.call("GET", `/v1/messages/${message_id}`)).json()) as View;
  };
  const made = await campaign("Your code is {{pin}}");
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const campaignId = String(made.body.campaign_id);

  // Limits at the door: the smallest limit of the list is Vonage's 1,000.
  const long = await campaign(`${"a".repeat(1200)} {{pin}}`);
  expect(long.status).toBe(400);
  expect(long.body).toMatchObject({
    code: "validation_failed",
    errors: [{ path: "template" }],
  });
  expect(JSON.stringify(long.body)).toContain("Vonage (vonage) takes at most 1000 characters");

  // A timeout: Twilio may have taken it, so it is not sent again anywhere.
  fakeTwilio.answerNext("hang");
  const timedOut = await send(campaignId, "111111");
  expect(timedOut).toMatchObject({
    status: "failed",
    provider: "twilio",
    tried_before: [],
    provider_ttl_seconds: null,
    error: { code: "upstream_unavailable", provider: "twilio" },
  });
  expect(fakeTwilio.sends).toHaveLength(1);
  expect(vonage.sends).toHaveLength(0);

  // Connections refused: nothing reached Twilio, so Vonage carries it at once, from its sender.
  await fakeTwilio.close();
  const refused = await send(campaignId, "222222");
  // The leg says which provider was tried before and why, and the TTL Vonage was given.
  expect(refused).toMatchObject({
    status: "sent",
    provider: "vonage",
    tried_before: [{ provider: "twilio", outcome: "unreachable" }],
    provider_ttl_seconds: 604_800,
    error: null,
  });
  expect(vonage.sends[0]?.body).toMatchObject({ ttl: 604_800 });
  expect(vonage.sends).toHaveLength(1);
  expect(vonage.sends[0]?.body).toMatchObject({
    channel: "sms",
    from: "14155550199",
    text: "Your code is 222222",
    client_ref: `${String(refused.message_id)}.sms`,
  });
  const uuid = String(vonage.sends[0]?.messageUuid);
  expect(refused.provider_message_id).toBe(uuid);
  // Vonage's signed report finds the leg it carried; the leg's notes stay.
  expect((await vonage.status(uuid, "delivered")).status).toBe(200);
  const delivered = await eventually("the failed-over message delivered", async () => {
    const view = (await (
      await tidings.call("GET", `/v1/messages/${refused.message_id}`)
    ).json()) as View;
    return view.status === "delivered" ? view : undefined;
  });
  expect(delivered.tried_before).toEqual([{ provider: "twilio", outcome: "unreachable" }]);
  const listed = (await (
    await tidings.call("GET", `/v1/messages?campaign_id=${campaignId}`)
  ).json()) as { data: View[] };
  expect(listed.data.find((m) => m.message_id === refused.message_id)?.tried_before).toEqual([
    { provider: "twilio", outcome: "unreachable" },
  ]);
  const exposition = parseExposition(await (await fetch(`${tidings.url}/metrics`)).text());
  expect(
    exposition.find(
      (s) =>
        s.name === "tidings_provider_failovers_total" &&
        s.labels.from === "twilio" &&
        s.labels.to === "vonage",
    )?.value,
  ).toBe(1);

  // Opted in: a timeout fails over too.
  fakeTwilio = await startTwilio();
  await tidings.restart({
    TIDINGS_TWILIO_API_URL: fakeTwilio.url,
    TIDINGS_FAILOVER_ON_TIMEOUT: "1",
  });
  fakeTwilio.answerNext("hang");
  const optedIn = await send(campaignId, "333333");
  expect(optedIn).toMatchObject({
    status: "sent",
    provider: "vonage",
    tried_before: [{ provider: "twilio", outcome: "unavailable" }],
    error: null,
  });
  expect(fakeTwilio.sends).toHaveLength(1);
  expect(vonage.sends.map((s) => s.body.text)).toEqual([
    "Your code is 222222",
    "Your code is 333333",
  ]);

  // Twilio alone: a 1,700-character template is refused when the campaign is activated.
  await tidings.restart({ TIDINGS_PROVIDER_SMS: "twilio", TIDINGS_FAILOVER_ON_TIMEOUT: undefined });
  const draft = await campaign(`${"a".repeat(1700)}{{pin}}`, "inactive");
  expect(draft.status).toBe(201);
  const activated = await tidings.call(
    "POST",
    `/v1/campaigns/${String(draft.body.campaign_id)}/activate`,
  );
  expect(activated.status).toBe(400);
  expect(activated.headers.get("content-type")).toContain("application/problem+json");
  const problem = (await activated.json()) as Record<string, unknown>;
  expect(problem).toMatchObject({
    code: "validation_failed",
    errors: [{ path: "template" }],
  });
  expect(JSON.stringify(problem)).toContain(
    "Twilio (twilio) takes at most 1600 characters of SMS text",
  );
});
