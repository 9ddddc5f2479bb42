import { randomBytes } from "node:crypto";
import { sqliteStorage } from "@tidings/adapter-sqlite";
import { cleanupsEach, skippedUnless } from "@tidings/core/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { runCli } from "./testing/run-cli.js";
import { type ServedTidings, serveTidings } from "./testing/served-tidings.js";
import { startWebhookTally } from "./testing/webhook-tally.js";

// Issue 44 through the real server, on SQLite and on PostgreSQL, with the sandbox's inbound
// route standing in for a provider's: STOP, the refusals it causes, the signed events, START,
// and a second organization that sees none of it.

const cleanups = cleanupsEach();
const SCOPES =
  "profiles:read,profiles:write,messages:send,messages:read,webhooks:manage,campaigns:manage";
const PERSON = "+14155550123";
const SHORT_CODE = "+15005550006";

const json = async (response: Response) => (await response.json()) as Record<string, unknown>;

/** The consent history's (source, new value) pairs of a profile, as stored. */
type HistoryOf = (profileId: string) => Promise<Array<{ source: string; newValue: boolean }>>;

async function consentLoopThroughServe(
  extraEnv: Record<string, string>,
  historyOf: (tidings: ServedTidings) => HistoryOf,
): Promise<void> {
  const tidings = await serveTidings(
    { TIDINGS_SANDBOX_DELAY_MS: "600000", ...extraEnv },
    { scopes: SCOPES },
  );
  cleanups.push(() => tidings.stop());
  const cli = async (...args: string[]) => {
    const run = await runCli([...args, "--json"], tidings.env);
    if (run.code !== 0) throw new Error(`tidings ${args.join(" ")}: ${run.stderr}`);
    return run.json<Record<string, unknown>>();
  };

  const hook = await json(
    await tidings.call("POST", "/v1/webhooks", {
      url: "http://127.0.0.1:1/placeholder",
      topics: ["profile.consent_changed", "message.received"],
    }),
  );
  const tally = await startWebhookTally(String(hook.signing_secret));
  cleanups.push(() => tally.close());
  await tidings.call("PATCH", `/v1/webhooks/${String(hook.webhook_id)}`, { url: tally.url });

  const created = await tidings.call("POST", "/v1/campaigns", {
    name: "Offers",
    channel: "sms",
    category: "promotional",
    sender: SHORT_CODE,
    template: "Offer {{code}}",
    status: "active",
  });
  expect(created.status).toBe(201);
  const promo = String((await json(created)).campaign_id);
  const profile = await json(
    await tidings.call("POST", "/v1/profiles", {
      phone_number: PERSON,
      sms_marketing_consent: true,
    }),
  );
  const publicId = String(profile.public_id);
  const sendPromo = () =>
    tidings.call("POST", "/v1/messages/send", {
      campaign_id: promo,
      recipient: { type: "phone_number", value: PERSON },
      params: { code: "A1" },
    });
  const sendOtp = () =>
    tidings.call("POST", "/v1/messages/send", {
      campaign_id: tidings.campaignId,
      recipient: { type: "public_id", value: publicId },
      params: { pin: "1234" },
    });
  expect((await sendPromo()).status).toBe(200);
  const inbound = (text: string) =>
    tidings.call("POST", "/sandbox/inbound", {
      channel: "sms",
      from: "+1 (415) 555-0123",
      to: SHORT_CODE,
      text,
    });

  // STOP: consent off with source inbound, every category refused before anything is stored.
  const stop = await inbound("Stop, please!");
  expect(stop.status).toBe(200);
  expect(await json(stop)).toEqual({ outcome: "stored" });
  const after = await json(await tidings.call("GET", `/v1/profiles/${publicId}`));
  expect(after.sms_marketing_consent).toBe(false);
  expect(after.suppressed).toEqual({ viber: false, sms: true });
  const history = historyOf(tidings);
  expect((await history(publicId)).at(-1)).toEqual({ source: "inbound", newValue: false });
  const messagesBefore = await json(await tidings.call("GET", "/v1/messages"));
  for (const refused of [await sendPromo(), await sendOtp()]) {
    expect(refused.status).toBe(403);
    expect((await json(refused)).code).toBe("recipient_opted_out");
  }
  const messagesAfter = await json(await tidings.call("GET", "/v1/messages"));
  expect((messagesAfter.data as unknown[]).length).toBe((messagesBefore.data as unknown[]).length);
  const suppressions = await json(await tidings.call("GET", "/v1/suppressions"));
  expect(suppressions.data).toEqual([
    expect.objectContaining({
      channel: "sms",
      source: "inbound",
      keyword: "STOP",
      provider: "sandbox",
    }),
  ]);
  const inboundList = await json(
    await tidings.call("GET", `/v1/inbound?phone_number=${encodeURIComponent(PERSON)}`),
  );
  expect(inboundList.data).toEqual([
    expect.objectContaining({
      from: PERSON,
      to: SHORT_CODE,
      keyword_class: "opt_out",
      public_id: publicId,
    }),
  ]);

  // The events arrive signed, in the usual body.
  const consentEvents = (source = "inbound") =>
    tally.received.filter((r) => r.topic === "profile.consent_changed" && r.data.source === source);
  await eventually("the consent change and the inbound message are delivered", async () =>
    consentEvents().length >= 1 &&
    consentEvents("api").length >= 1 &&
    tally.received.some((r) => r.topic === "message.received")
      ? true
      : undefined,
  );
  expect(tally.received.every((r) => r.verified)).toBe(true);
  // The profile's creation with consent sent one too, with the same body.
  expect(consentEvents("api").map((r) => r.data)).toEqual([
    {
      public_id: publicId,
      phone_number: PERSON,
      channel: "sms",
      marketing_consent: true,
      suppressed: false,
      source: "api",
      keyword: null,
      provider: null,
      note: null,
      changed_at: profile.created_at,
    },
  ]);
  expect(consentEvents()[0]?.data).toEqual(
    expect.objectContaining({
      public_id: publicId,
      phone_number: PERSON,
      channel: "sms",
      marketing_consent: false,
      suppressed: true,
      source: "inbound",
      keyword: "STOP",
      provider: "sandbox",
    }),
  );
  expect(tally.received.find((r) => r.topic === "message.received")?.data).toEqual(
    expect.objectContaining({
      from: PERSON,
      to: SHORT_CODE,
      text: "Stop, please!",
      keyword_class: "opt_out",
    }),
  );

  // START restores exactly the consent STOP removed, and sends go out again.
  expect(await json(await inbound("ＳＴＡＲＴ"))).toEqual({ outcome: "stored" });
  const restored = await json(await tidings.call("GET", `/v1/profiles/${publicId}`));
  expect(restored.sms_marketing_consent).toBe(true);
  expect(restored.suppressed).toEqual({ viber: false, sms: false });
  expect((await history(publicId)).at(-1)).toEqual({ source: "inbound", newValue: true });
  expect((await sendOtp()).status).toBe(200);
  expect((await sendPromo()).status).toBe(200);
  await eventually("the opt-in's consent change is delivered", async () =>
    consentEvents().length >= 2 ? true : undefined,
  );
  expect(consentEvents()[1]?.data).toEqual(
    expect.objectContaining({ marketing_consent: true, suppressed: false, source: "inbound" }),
  );

  // A PATCH that changes consent sends the event too.
  const patched = await tidings.call("PATCH", `/v1/profiles/${publicId}`, {
    viber_marketing_consent: true,
  });
  expect(patched.status).toBe(200);
  await eventually("the PATCH's consent change is delivered", async () =>
    consentEvents("api").length >= 2 ? true : undefined,
  );
  expect(consentEvents("api")[1]?.data).toEqual(
    expect.objectContaining({
      public_id: publicId,
      channel: "viber",
      marketing_consent: true,
      suppressed: false,
      source: "api",
    }),
  );

  // A second organization: the assigned short code is refused in its campaign, and it sees
  // nothing of the first one's STOP.
  const orgA = String(
    ((await cli("orgs", "list")) as { data: Array<{ org_id: string }> }).data[0]?.org_id,
  );
  await cli("senders", "assign", SHORT_CODE, "--org", orgA, "--channel", "sms");
  const { org_id: orgB } = (await cli("orgs", "create", "--name", "Other")) as { org_id: string };
  const keyB = (await cli("keys", "create", "--org", orgB, "--scopes", SCOPES)) as {
    token: string;
  };
  const callB = (method: string, path: string, body?: unknown) =>
    fetch(`${tidings.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${keyB.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const taken = await callB("POST", "/v1/campaigns", {
    name: "Borrowed",
    channel: "sms",
    category: "promotional",
    sender: SHORT_CODE,
    template: "Hi",
    status: "active",
  });
  expect(taken.status).toBe(409);
  expect((await json(taken)).code).toBe("sender_taken");
  const profileB = await json(
    await callB("POST", "/v1/profiles", { phone_number: PERSON, sms_marketing_consent: true }),
  );
  expect(await json(await inbound("STOP"))).toEqual({ outcome: "stored" });
  const bAfter = await json(await callB("GET", `/v1/profiles/${String(profileB.public_id)}`));
  expect(bAfter.sms_marketing_consent).toBe(true);
  expect((await json(await callB("GET", "/v1/inbound"))).data).toEqual([]);
  expect((await json(await callB("GET", "/v1/suppressions"))).data).toEqual([]);
  const ownB = await json(
    await callB("POST", "/v1/campaigns", {
      name: "Own",
      channel: "sms",
      category: "promotional",
      sender: "OtherCo",
      template: "Hi",
      status: "active",
    }),
  );
  const sentB = await callB("POST", "/v1/messages/send", {
    campaign_id: ownB.campaign_id,
    recipient: { type: "phone_number", value: PERSON },
  });
  expect(sentB.status).toBe(200);

  // The list shows a suppression's number wherever the organization knows it: a profile has
  // it (the number's profile when the suppression came, or one given the number since), or an
  // inbound message still kept came from it; elsewhere only the hash.
  const STRANGER = "+14155550177";
  const LATER = "+14155550188";
  const fromStranger = await tidings.call("POST", "/sandbox/inbound", {
    channel: "sms",
    from: STRANGER,
    to: SHORT_CODE,
    text: "STOP",
  });
  expect(await json(fromStranger)).toEqual({ outcome: "stored" });
  const added = await tidings.call("POST", "/v1/suppressions", {
    channel: "sms",
    phone_number: LATER,
  });
  expect(added.status).toBe(201);
  const listed = async (query = "") => {
    const page = await json(await tidings.call("GET", `/v1/suppressions${query}`));
    return page as {
      data: Array<{ phone_number: string | null; phone_number_hash: string }>;
      meta: { next_cursor: string | null };
    };
  };
  const before = await listed();
  expect(before.data.map((x) => x.phone_number)).toEqual([null, STRANGER, PERSON]);
  expect(before.data[0]?.phone_number_hash).toMatch(/^[0-9a-f]{64}$/);
  const later = await json(await tidings.call("POST", "/v1/profiles", { phone_number: LATER }));
  expect((await listed()).data.map((x) => x.phone_number)).toEqual([LATER, STRANGER, PERSON]);
  // Page by page, the same: each page finds its own numbers.
  const first = await listed("?limit=2");
  expect(first.data.map((x) => x.phone_number)).toEqual([LATER, STRANGER]);
  const second = await listed(`?limit=2&cursor=${String(first.meta.next_cursor)}`);
  expect(second.data.map((x) => x.phone_number)).toEqual([PERSON]);
  // A profile that no longer has the number no longer gives it; the filter still does.
  const moved = await tidings.call("PATCH", `/v1/profiles/${String(later.public_id)}`, {
    phone_number: "+14155550199",
  });
  expect(moved.status).toBe(200);
  expect((await listed()).data.map((x) => x.phone_number)).toEqual([null, STRANGER, PERSON]);
  const filtered = await listed(`?phone_number=${encodeURIComponent(LATER)}`);
  expect(filtered.data.map((x) => x.phone_number)).toEqual([LATER]);
  // The other organization, which never knew these numbers, still sees none of them.
  expect((await json(await callB("GET", "/v1/suppressions"))).data).toEqual([]);
}

describe("consent that closes the loop through tidings serve (issue 44)", () => {
  it("SQLite: STOP suppresses and refuses, events arrive signed, START restores, another organization sees nothing", {
    timeout: 90_000,
  }, async () => {
    await consentLoopThroughServe({}, (tidings) => async (profileId) => {
      const storage = sqliteStorage(tidings.databasePath);
      try {
        const profile = await storage.profiles.get(
          (await storage.organizations.list())[0]?.id ?? "",
          profileId,
        );
        const changes = await storage.consent.listForProfile(
          profile?.organizationId ?? "",
          profileId,
        );
        return changes.map((c) => ({ source: c.source, newValue: c.newValue }));
      } finally {
        await storage.close();
      }
    });
  });

  const pgUrl = process.env.TIDINGS_TEST_PG_URL;
  it.skipIf(
    skippedUnless(
      pgUrl !== undefined,
      "the consent loop on PostgreSQL needs a server; set TIDINGS_TEST_PG_URL to run it",
    ),
  )("PostgreSQL: the same", { timeout: 90_000 }, async () => {
    const schema = `consent_${randomBytes(6).toString("hex")}`;
    const base = pgUrl ?? "";
    const admin = new pg.Pool({ connectionString: base, max: 1 });
    admin.on("error", () => undefined);
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });
    await consentLoopThroughServe(
      {
        TIDINGS_DATABASE_URL: `${base}${base.includes("?") ? "&" : "?"}schema=${schema}`,
        TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
      },
      () => async (profileId) => {
        const rows = await admin.query<{ source: string; new_value: boolean }>(
          `SELECT source, new_value FROM "${schema}".consent_changes WHERE profile_id = $1 ORDER BY changed_at, id`,
          [profileId],
        );
        return rows.rows.map((r) => ({ source: r.source, newValue: r.new_value }));
      },
    );
  });
});
