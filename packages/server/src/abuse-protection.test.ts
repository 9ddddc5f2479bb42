import { randomBytes } from "node:crypto";
import { manualClock } from "@tidings/core";
import { cleanupsEach, skippedUnless } from "@tidings/core/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { sendOtp, startProcessCluster } from "./testing/process-cluster.js";
import { runCli } from "./testing/run-cli.js";
import { type ServedTidings, serveTidings } from "./testing/served-tidings.js";

// Abuse protection through the real server, on SQLite and on PostgreSQL: the settings resource,
// refusals that store nothing, the per-number and per-prefix limits with a clock the test moves
// (so an hour passes at once), and two processes on one PostgreSQL schema sharing the limit.

const cleanups = cleanupsEach();
const SCOPES = "profiles:read,profiles:write,messages:send,messages:read,settings:manage";
const pgUrl = process.env.TIDINGS_TEST_PG_URL;

const json = async (response: Response) => (await response.json()) as Record<string, unknown>;

/** A fresh PostgreSQL schema's environment for `serve`, dropped after the test. */
function postgresEnv(): Record<string, string> {
  const schema = `abuse_${randomBytes(6).toString("hex")}`;
  const base = pgUrl ?? "";
  const admin = new pg.Pool({ connectionString: base, max: 1 });
  admin.on("error", () => undefined);
  cleanups.push(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  return {
    TIDINGS_DATABASE_URL: `${base}${base.includes("?") ? "&" : "?"}schema=${schema}`,
    TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
  };
}

async function abuseProtectionThroughServe(env: Record<string, string>): Promise<void> {
  const clock = manualClock(Date.now());
  const tidings: ServedTidings = await serveTidings(env, { scopes: SCOPES, clock });
  cleanups.push(() => tidings.stop());
  const send = (phone: string) =>
    tidings.call("POST", "/v1/messages/send", {
      campaign_id: tidings.campaignId,
      recipient: { type: "phone_number", value: phone },
      params: { pin: "1234" },
    });
  const storedFor = async (phone: string) => {
    const profiles = await json(
      await tidings.call("GET", `/v1/profiles?phone_number=${encodeURIComponent(phone)}`),
    );
    const messages = await json(await tidings.call("GET", "/v1/messages?limit=100"));
    return {
      profiles: (profiles.data as unknown[]).length,
      messages: (messages.data as Array<{ phone_number?: string; recipient?: string }>).filter(
        (m) => JSON.stringify(m).includes(phone),
      ).length,
    };
  };

  // The defaults: every limit off, premium-rate, shared-cost and UAN numbers blocked.
  const defaults = await json(await tidings.call("GET", "/v1/settings"));
  expect(defaults).toEqual({
    allowed_countries: null,
    blocked_number_types: ["PREMIUM_RATE", "SHARED_COST", "UAN"],
    destination_limits: { per_hour: null, per_day: null },
    prefix_limits: { per_hour: null },
    country_daily_limits: {},
    updated_at: null,
  });

  // Bad input names the field.
  const bad = async (body: unknown, path: string) => {
    const answer = await tidings.call("PATCH", "/v1/settings", body);
    expect(answer.status).toBe(400);
    const problem = await json(answer);
    expect((problem.errors as Array<{ path: string }>).map((e) => e.path)).toContain(path);
  };
  await bad({ allowed_countries: ["GB", "XX"] }, "allowed_countries[1]");
  await bad({ blocked_number_types: ["EXPENSIVE"] }, "blocked_number_types[0]");
  await bad({ destination_limits: { per_hour: -1 } }, "destination_limits.per_hour");
  await bad({ prefix_limits: { per_hour: 2.5 } }, "prefix_limits.per_hour");
  await bad({ country_daily_limits: { GB: -3 } }, "country_daily_limits.GB");
  await bad({ daily_budget: 10 }, "daily_budget");

  // A premium-rate number is refused by default, and nothing is stored.
  const premium = "+449098790000";
  const refusedPremium = await send(premium);
  expect(refusedPremium.status).toBe(403);
  expect((await json(refusedPremium)).code).toBe("recipient_number_type_blocked");
  expect(await storedFor(premium)).toEqual({ profiles: 0, messages: 0 });

  // Only the United States: a French number is refused and stores nothing.
  const changed = await tidings.call("PATCH", "/v1/settings", {
    allowed_countries: ["US"],
    destination_limits: { per_hour: 10 },
    prefix_limits: { per_hour: 15 },
  });
  expect(changed.status).toBe(200);
  expect(await json(changed)).toMatchObject({
    allowed_countries: ["US"],
    destination_limits: { per_hour: 10, per_day: null },
    prefix_limits: { per_hour: 15 },
  });
  const french = "+33612345678";
  const refusedCountry = await send(french);
  expect(refusedCountry.status).toBe(403);
  expect((await json(refusedCountry)).code).toBe("recipient_country_not_allowed");
  expect(await storedFor(french)).toEqual({ profiles: 0, messages: 0 });

  // Ten an hour to one number: the eleventh is 429 with a Retry-After that lets the next through.
  const number = "+14155550101";
  // A minute apart, so the oldest leaves the hour first and makes room for one more only.
  for (let i = 0; i < 10; i += 1) {
    if (i > 0) clock.advance(60_000);
    expect((await send(number)).status).toBe(200);
  }
  const eleventh = await send(number);
  expect(eleventh.status).toBe(429);
  expect((await json(eleventh)).code).toBe("destination_rate_limited");
  const retryAfter = Number(eleventh.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBe(3600 - 9 * 60);
  // The refusal stored nothing: still ten messages to the number.
  expect((await storedFor(number)).messages).toBe(10);
  clock.advance(retryAfter * 1000);
  expect((await send(number)).status).toBe(200);
  expect((await send(number)).status).toBe(429);
  // The same person named by public id or e-mail is counted by their number too.
  const found = await json(
    await tidings.call("GET", `/v1/profiles?phone_number=${encodeURIComponent(number)}`),
  );
  const publicId = String((found.data as Array<{ public_id: string }>)[0]?.public_id);
  const named = await tidings.call("PATCH", `/v1/profiles/${publicId}`, {
    email: "limited@example.com",
  });
  expect(named.status).toBe(200);
  for (const recipient of [
    { type: "public_id", value: publicId },
    { type: "email", value: "Limited@Example.com" },
  ]) {
    const byProfile = await tidings.call("POST", "/v1/messages/send", {
      campaign_id: tidings.campaignId,
      recipient,
      params: { pin: "1234" },
    });
    expect(byProfile.status, recipient.type).toBe(429);
    expect((await json(byProfile)).code).toBe("destination_rate_limited");
  }
  expect((await storedFor(number)).messages).toBe(11);

  // The prefix limit (15 an hour): numbers of one range trip it, numbers of many ranges do not.
  clock.advance(3_600_000);
  // +1 415 555 3200 to 3215 share all but their last 3 digits; +1 415 300 0123, 307 0123, …
  // each have a range of their own.
  const sameRange = Array.from({ length: 16 }, (_, i) => `+141555532${String(i).padStart(2, "0")}`);
  const answers: number[] = [];
  for (const phone of sameRange) answers.push((await send(phone)).status);
  expect(answers.slice(0, 15)).toEqual(Array(15).fill(200));
  expect(answers[15]).toBe(429);
  const spread = Array.from({ length: 16 }, (_, i) => `+1415${String(300 + i * 7)}0123`);
  const spreadAnswers: number[] = [];
  for (const phone of spread) spreadAnswers.push((await send(phone)).status);
  expect(spreadAnswers).toEqual(Array(16).fill(200));

  const metrics = await (await fetch(`${tidings.url}/metrics`)).text();
  expect(metrics).toMatch(/^tidings_sends_refused_total\{reason="number_type_blocked"\} 1$/m);
  expect(metrics).toMatch(/^tidings_sends_refused_total\{reason="country_not_allowed"\} 1$/m);
  expect(metrics).toMatch(/^tidings_sends_refused_total\{reason="destination_limit"\} 4$/m);
  expect(metrics).toMatch(/^tidings_sends_refused_total\{reason="prefix_limit"\} 1$/m);
  expect(metrics).toMatch(/^tidings_sends_by_country_total\{country="US"\} 42$/m);
}

describe("abuse protection through tidings serve (issue 46)", () => {
  it("SQLite: settings, refusals that store nothing, per-number and per-prefix limits", {
    timeout: 90_000,
  }, async () => {
    await abuseProtectionThroughServe({});
  });

  it.skipIf(
    skippedUnless(
      pgUrl !== undefined,
      "abuse protection on PostgreSQL needs a server; set TIDINGS_TEST_PG_URL to run it",
    ),
  )("PostgreSQL: the same", { timeout: 90_000 }, async () => {
    await abuseProtectionThroughServe(postgresEnv());
  });

  it("a key without settings:manage gets 403 for both", { timeout: 60_000 }, async () => {
    const tidings = await serveTidings({}, { scopes: "messages:send" });
    cleanups.push(() => tidings.stop());
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { destination_limits: { per_hour: 10 } }],
    ] as const) {
      const answer = await tidings.call(method, "/v1/settings", body);
      expect(answer.status).toBe(403);
      expect((await json(answer)).code).toBe("missing_scope");
    }
  });

  it.skipIf(
    skippedUnless(
      pgUrl !== undefined,
      "two processes on PostgreSQL need a server; set TIDINGS_TEST_PG_URL to run it",
    ),
  )(
    "two processes on PostgreSQL together never let more through than the limit",
    {
      timeout: 120_000,
    },
    async () => {
      const cluster = await startProcessCluster({
        pgUrl: pgUrl ?? "",
        servers: 2,
        workers: 0,
        env: {},
      });
      cleanups.push(() => cluster.stop());
      const cli = async (...args: string[]) => {
        const run = await runCli([...args, "--json"], cluster.env);
        if (run.code !== 0) throw new Error(`tidings ${args.join(" ")}: ${run.stderr}`);
        return run.json<Record<string, unknown>>();
      };
      const { org_id } = (await cli("orgs", "create", "--name", "Pumped")) as { org_id: string };
      const key = (await cli(
        ..."keys create --org".split(" "),
        org_id,
        "--scopes",
        "messages:send",
      )) as { token: string };
      const campaign = (await cli(
        ..."campaigns create --org".split(" "),
        org_id,
        ..."--name Login --channel sms --category otp --sender Acme --active".split(" "),
        "--template",
        "Your code is {{pin}}",
      )) as { campaign_id: string };
      const set = await cli(
        "settings",
        "set",
        "--org",
        org_id,
        "--json",
        JSON.stringify({ destination_limits: { per_hour: 7 } }),
      );
      expect(set).toMatchObject({ destination_limits: { per_hour: 7, per_day: null } });
      const sender = { token: key.token, campaignId: campaign.campaign_id };
      const urls = cluster.servers.map((server) => server.baseUrl);
      // 30 sends to one number at once, spread over both processes.
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          sendOtp(urls[i % urls.length] ?? "", sender, { phone: "+14155550177" }).then(
            (r) => r.status,
          ),
        ),
      );
      expect(answers.filter((status) => status === 200)).toHaveLength(7);
      expect(answers.filter((status) => status === 429)).toHaveLength(23);
      const [stored] = await cluster.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${cluster.schema}".messages`,
      );
      expect(Number(stored?.n)).toBe(7);
    },
  );
});
