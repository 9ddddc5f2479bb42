import { randomBytes } from "node:crypto";
import { startFakeTwilio } from "@tidings/adapter-twilio/testing";
import { cleanupsEach, skippedUnless } from "@tidings/core/testing";
import pg from "pg";
import twilio from "twilio";
import { describe, expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { type ServedTidings, serveTidings } from "./testing/served-tidings.js";
import { startWebhookTally } from "./testing/webhook-tally.js";

// Issue 35 through the real server, once on SQLite and once on PostgreSQL: SMS goes to a
// loopback fake of Twilio and Viber stays on the sandbox, so both a real provider's adapter and
// the sandbox are seen carrying the short link. One server per database; loops are bounded.

const cleanups = cleanupsEach();
const ACCOUNT = `AC${"2".repeat(32)}`;
const AUTH_TOKEN = "tracked-links-auth-token";
const SCOPES =
  "profiles:read,profiles:write,messages:send,messages:read,webhooks:manage,campaigns:manage";
const TEMPLATE =
  "Order {{order}}: https://shop.example/o/{{order}}?t=secret - help: https://help.example/faq";
const SHORT_LINK = /http:\/\/127\.0\.0\.1:\d+\/l\/([0-9A-Za-z]{12})/g;

const json = async (response: Response) => (await response.json()) as Record<string, unknown>;

async function trackedLinksThroughServe(extraEnv: Record<string, string>): Promise<void> {
  const fake = await startFakeTwilio({
    accountSid: ACCOUNT,
    authToken: AUTH_TOKEN,
    sign: twilio.getExpectedTwilioSignature,
  });
  cleanups.push(() => fake.close());
  const tidings: ServedTidings = await serveTidings(
    {
      TIDINGS_PROVIDER_SMS: "twilio",
      TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
      TIDINGS_TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      TIDINGS_TWILIO_API_URL: fake.url,
      TIDINGS_SANDBOX_DELAY_MS: "600000",
      ...extraEnv,
    },
    { scopes: SCOPES },
  );
  cleanups.push(() => tidings.stop());

  // The organization's subscription to clicks, at a receiver that checks every signature.
  const hook = await json(
    await tidings.call("POST", "/v1/webhooks", {
      url: "http://127.0.0.1:1/placeholder",
      topics: ["message.clicked"],
    }),
  );
  const tally = await startWebhookTally(String(hook.signing_secret));
  cleanups.push(() => tally.close());
  await tidings.call("PATCH", `/v1/webhooks/${String(hook.webhook_id)}`, { url: tally.url });

  const campaign = async (channel: "sms" | "viber", trackLinks: boolean) => {
    const created = await tidings.call("POST", "/v1/campaigns", {
      name: `${channel} ${trackLinks}`,
      channel,
      category: "transactional",
      sender: "Acme",
      template: TEMPLATE,
      status: "active",
      track_links: trackLinks,
    });
    expect(created.status).toBe(201);
    const view = await json(created);
    expect(view.track_links).toBe(trackLinks);
    return String(view.campaign_id);
  };
  const send = async (campaignId: string) => {
    const sent = await tidings.call("POST", "/v1/messages/send", {
      campaign_id: campaignId,
      recipient: { type: "phone_number", value: "+14155550123" },
      params: { order: "A-7" },
    });
    expect(sent.status).toBe(200);
    return String((await json(sent)).message_id);
  };

  // Twilio is handed the short links, not the originals.
  const tracked = await send(await campaign("sms", true));
  const body = String(fake.sends.at(-1)?.form.Body);
  const codes = [...body.matchAll(SHORT_LINK)].map((match) => match[1] ?? "");
  expect(codes).toHaveLength(2);
  expect(body).toBe(`Order A-7: ${tidings.url}/l/${codes[0]} - help: ${tidings.url}/l/${codes[1]}`);
  expect(body).not.toContain("shop.example");

  // The sandbox is too, as the development view shows to the key that sent it.
  const onSandbox = await send(await campaign("viber", true));
  const seen = await json(await tidings.call("GET", `/sandbox/messages/${onSandbox}`));
  expect(seen).toMatchObject({ message_id: onSandbox, channel: "viber", sender: "Acme" });
  expect(String(seen.text)).toMatch(/^Order A-7: http:\/\/127\.0\.0\.1:\d+\/l\/[0-9A-Za-z]{12} - /);

  // Without tracking, the text is byte for byte what it was before tracked links existed.
  await send(await campaign("sms", false));
  expect(fake.sends.at(-1)?.form.Body).toBe(
    "Order A-7: https://shop.example/o/A-7?t=secret - help: https://help.example/faq",
  );

  // A preview fetch and a HEAD redirect without counting; two clicks count, one event.
  const follow = (code: string, init: RequestInit = {}) =>
    fetch(`${tidings.url}/l/${code}`, { redirect: "manual", ...init });
  const preview = await follow(codes[0] ?? "", {
    headers: { "user-agent": "facebookexternalhit/1.1" },
  });
  expect(preview.status).toBe(302);
  expect((await follow(codes[0] ?? "", { method: "HEAD" })).status).toBe(302);
  for (const code of [codes[0] ?? "", codes[1] ?? ""]) {
    const click = await follow(code);
    expect(click.status).toBe(302);
    expect(click.headers.get("cache-control")).toBe("no-store");
    expect(click.headers.get("referrer-policy")).toBe("no-referrer");
  }
  const first = await follow(codes[0] ?? "");
  expect(first.headers.get("location")).toBe("https://shop.example/o/A-7?t=secret");
  expect((await follow("000000000000")).status).toBe(404);

  const clicked = await eventually("message.clicked at the receiver", async () =>
    tally.received.find((r) => r.topic === "message.clicked" && r.messageId === tracked),
  );
  expect(clicked.verified).toBe(true);
  const view = await json(await tidings.call("GET", `/v1/messages/${tracked}`));
  const topics = (view.events as Array<{ topic: string }>).map((event) => event.topic);
  expect(topics.filter((topic) => topic === "message.clicked")).toHaveLength(1);
  expect(view.status).toBe("clicked");
  expect(view.links).toEqual([
    {
      url: `${tidings.url}/l/${codes[0]}`,
      original_url: "https://shop.example/o/A-7",
      clicks: 2,
      first_clicked_at: expect.any(String),
      last_clicked_at: expect.any(String),
    },
    {
      url: `${tidings.url}/l/${codes[1]}`,
      original_url: "https://help.example/faq",
      clicks: 1,
      first_clicked_at: expect.any(String),
      last_clicked_at: expect.any(String),
    },
  ]);
  expect(tally.received.filter((r) => r.topic === "message.clicked")).toHaveLength(1);

  // The request log names the route, never a code: it leads to a URL that may carry a token.
  const logged = tidings.logs().filter((line) => String(line.path).startsWith("/l/"));
  expect(logged.length).toBeGreaterThan(0);
  expect(logged.every((line) => line.path === "/l/{code}")).toBe(true);

  const metrics = await (await fetch(`${tidings.url}/metrics`)).text();
  expect(metrics).toMatch(/^tidings_link_clicks_total\{counted="true"\} 3$/m);
  expect(metrics).toMatch(/^tidings_link_clicks_total\{counted="false"\} 2$/m);
}

describe("tracked links through tidings serve (issue 35)", () => {
  it("SQLite: short links to the provider and the sandbox, redirects, one signed message.clicked", {
    timeout: 60_000,
  }, async () => {
    await trackedLinksThroughServe({});
  });

  const pgUrl = process.env.TIDINGS_TEST_PG_URL;
  it.skipIf(
    skippedUnless(
      pgUrl !== undefined,
      "tracked links on PostgreSQL need a server; set TIDINGS_TEST_PG_URL to run them",
    ),
  )("PostgreSQL: the same", { timeout: 60_000 }, async () => {
    const schema = `links_${randomBytes(6).toString("hex")}`;
    const base = pgUrl ?? "";
    const admin = new pg.Pool({ connectionString: base, max: 1 });
    admin.on("error", () => undefined);
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });
    await trackedLinksThroughServe({
      TIDINGS_DATABASE_URL: `${base}${base.includes("?") ? "&" : "?"}schema=${schema}`,
      TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
    });
  });

  it("a campaign tracking links after its link base was removed sends them as written, and the log says so once", {
    timeout: 60_000,
  }, async () => {
    const tidings = await serveTidings(
      { TIDINGS_DEV: "0", TIDINGS_PUBLIC_URL: "https://tidings.example" },
      { scopes: SCOPES },
    );
    cleanups.push(() => tidings.stop());
    const created = await tidings.call("POST", "/v1/campaigns", {
      name: "Tracked",
      channel: "sms",
      category: "transactional",
      sender: "Acme",
      template: TEMPLATE,
      status: "active",
      track_links: true,
    });
    expect(created.status).toBe(201);
    const campaignId = String((await json(created)).campaign_id);

    await tidings.restart({ TIDINGS_PUBLIC_URL: undefined });
    for (const order of ["A-1", "A-2"]) {
      const sent = await tidings.call("POST", "/v1/messages/send", {
        campaign_id: campaignId,
        recipient: { type: "phone_number", value: "+14155550123" },
        params: { order },
      });
      expect(sent.status).toBe(200);
      const id = String((await json(sent)).message_id);
      const view = await json(await tidings.call("GET", `/v1/messages/${id}`));
      expect(view.links).toEqual([]);
    }
    const warnings = tidings
      .logs()
      .filter((line) => String(line.msg).startsWith("campaign tracks links"));
    expect(warnings).toEqual([expect.objectContaining({ level: "warn", campaign_id: campaignId })]);
  });

  it("outside dev, a campaign cannot turn tracking on without an https link base", {
    timeout: 30_000,
  }, async () => {
    const tidings = await serveTidings(
      { TIDINGS_DEV: "0", TIDINGS_PUBLIC_URL: "http://tidings.example" },
      { scopes: SCOPES },
    );
    cleanups.push(() => tidings.stop());
    const refused = await tidings.call("POST", "/v1/campaigns", {
      name: "Tracked",
      channel: "sms",
      category: "transactional",
      sender: "Acme",
      template: TEMPLATE,
      track_links: true,
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(await json(refused)).toMatchObject({
      code: "validation_failed",
      errors: [expect.objectContaining({ path: "track_links" })],
    });
  });
});
