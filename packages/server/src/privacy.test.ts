import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cleanupsEach, skippedUnless } from "@tidings/core/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { createSender } from "./testing/process-cluster.js";
import { type ServedTidings, serveTidings } from "./testing/served-tidings.js";

// Erasure and export through the real server, once on SQLite and once on PostgreSQL. After a
// person is erased, a search of every column of every table the database catalogue lists finds
// none of their identifiers or texts, while a second person's are still found by the same search
// (so the search itself is shown to work); the export made before held all of the first
// person's messages and consent changes and nothing of the second, nor of a third person in
// another organization.

const cleanups = cleanupsEach();
/** The first organization's numeric sender, which the person's STOP is written to. */
const SENDER = "+15005550006";
const SCOPES =
  "profiles:read,profiles:write,messages:send,messages:read,webhooks:manage,campaigns:manage";

type Json = Record<string, unknown>;
const json = async (response: Response) => (await response.json()) as Json;

/** One person, with values found nowhere else. */
const person = (tag: string, digits: string) => ({
  phone: `+1415555${digits}`,
  email: `${tag}.mail@Example.org`,
  first: `Zeph${tag}ine`,
  last: `Quor${tag}ath`,
  attribute: `loyalty-${tag}-gold`,
  order: `ORD${tag}77`,
});
type Person = ReturnType<typeof person>;

/** What must be gone after erasure: every identifier and every text specific to the person. */
const needles = (p: Person) => [
  p.phone,
  p.phone.slice(1),
  p.email,
  p.email.toLowerCase(),
  p.first,
  p.last,
  p.attribute,
  p.order,
];

/** Calls the API at `url` with `token`, `body` as JSON, `key` as its Idempotency-Key. */
const callAs = (
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
) =>
  fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(key === undefined ? {} : { "idempotency-key": key }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** A webhook receiver that answers each request with its own body, so attempts record it. */
async function startEcho() {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      bodies.push(body);
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every value of every column of every table, as text, each with where it was found. */
type Dump = () => Promise<Array<{ where: string; text: string }>>;

function sqliteDump(path: string): Dump {
  return async () => {
    const db = new Database(path, { readonly: true });
    try {
      const out: Array<{ where: string; text: string }> = [];
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all() as Array<{ name: string }>;
      for (const { name } of tables) {
        const columns = db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{
          name: string;
        }>;
        for (const column of columns) {
          const rows = db
            .prepare(`SELECT CAST("${column.name}" AS TEXT) AS v FROM "${name}"`)
            .all() as Array<{ v: string | null }>;
          for (const row of rows) {
            if (row.v !== null) out.push({ where: `${name}.${column.name}`, text: row.v });
          }
        }
      }
      return out;
    } finally {
      db.close();
    }
  };
}

function postgresDump(url: string, schema: string): Dump {
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const out: Array<{ where: string; text: string }> = [];
      const columns = await client.query<{ table_name: string; column_name: string }>(
        `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t
           ON t.table_schema = c.table_schema AND t.table_name = c.table_name
         WHERE c.table_schema = $1 AND t.table_type = 'BASE TABLE'`,
        [schema],
      );
      expect(columns.rows.length).toBeGreaterThan(50);
      for (const { table_name: table, column_name: column } of columns.rows) {
        const rows = await client.query<{ v: string | null }>(
          `SELECT "${column}"::text AS v FROM "${schema}"."${table}"`,
        );
        for (const row of rows.rows) {
          if (row.v !== null) out.push({ where: `${table}.${column}`, text: row.v });
        }
      }
      return out;
    } finally {
      await client.end();
    }
  };
}

/** Where each needle still is. */
async function found(dump: Dump, values: string[]): Promise<string[]> {
  const rows = await dump();
  const hits: string[] = [];
  for (const value of values) {
    for (const row of rows) if (row.text.includes(value)) hits.push(`${value} in ${row.where}`);
  }
  return hits;
}

async function privacyThroughServe(
  env: Record<string, string>,
  dumpOf: (t: ServedTidings) => Dump,
) {
  const tidings = await serveTidings(
    { TIDINGS_SANDBOX_DELAY_MS: "50", ...env },
    { scopes: SCOPES },
  );
  cleanups.push(() => tidings.stop());
  const echo = await startEcho();
  cleanups.push(() => echo.close());
  const ok = async (response: Promise<Response>, status = 200) => {
    const answered = await response;
    const body = await json(answered);
    expect(answered.status, JSON.stringify(body)).toBe(status);
    return body;
  };

  await ok(
    tidings.call("POST", "/v1/webhooks", {
      url: echo.url,
      topics: ["message.sent", "message.delivered"],
    }),
    201,
  );
  const campaign = await ok(
    tidings.call("POST", "/v1/campaigns", {
      name: "Orders",
      channel: "sms",
      category: "transactional",
      sender: SENDER,
      template: "Order {{order}} is on its way: https://shop.example/track/{{order}}",
      status: "active",
      track_links: true,
    }),
    201,
  );

  const ada = person("aa", "0161");
  const bob = person("bb", "0162");
  const setUp = async (
    p: Person,
    call: (method: string, path: string, body?: unknown, key?: string) => Promise<Response>,
    campaignId: string,
  ) => {
    const profile = await ok(
      call("POST", "/v1/profiles", {
        phone_number: p.phone,
        email: p.email,
        first_name: p.first,
        last_name: p.last,
        sms_marketing_consent: true,
        attributes: { tier: p.attribute },
      }),
      201,
    );
    const id = String(profile.public_id);
    await ok(call("PATCH", `/v1/profiles/${id}`, { viber_marketing_consent: true }));
    const messages: string[] = [];
    for (const suffix of ["1", "2"]) {
      const sent = await ok(
        call(
          "POST",
          "/v1/messages/send",
          {
            campaign_id: campaignId,
            recipient: { type: "public_id", value: id },
            params: { order: `${p.order}${suffix}` },
          },
          `send-${p.order}-${suffix}`,
        ),
      );
      messages.push(String(sent.message_id));
    }
    return { id, messages };
  };
  const asMain = (method: string, path: string, body?: unknown, key?: string) =>
    callAs(tidings.url, tidings.token, method, path, body, key);
  const adaMade = await setUp(ada, asMain, String(campaign.campaign_id));
  const bobMade = await setUp(bob, asMain, String(campaign.campaign_id));

  // A third person in another organization, sent to through its own key.
  const otherOrg = await createSender(tidings.env, SCOPES);
  const carol = person("cc", "0163");
  const asOther = (method: string, path: string, body?: unknown, key?: string) =>
    callAs(tidings.url, otherOrg.token, method, path, body, key);
  const otherCampaign = await ok(
    asOther("POST", "/v1/campaigns", {
      name: "Orders",
      channel: "sms",
      category: "transactional",
      sender: "Acme",
      template: "Order {{order}} is on its way",
      status: "active",
    }),
    201,
  );
  await setUp(carol, asOther, String(otherCampaign.campaign_id));

  // Every event of the first organization reached the echoing receiver (sent and delivered).
  await eventually("the webhook deliveries with their echoed bodies", async () =>
    echo.bodies.filter((b) => b.includes("message.delivered")).length >= 4 ? true : undefined,
  );

  // Ada replies STOP to the sender (the sandbox's inbound route, dev mode): a suppression and
  // an inbound message from her number.
  expect(
    await ok(
      tidings.call("POST", "/sandbox/inbound", {
        channel: "sms",
        from: ada.phone,
        to: SENDER,
        text: "STOP",
      }),
    ),
  ).toEqual({ outcome: "stored" });
  // And a suppression added by API on Viber whose note names her.
  await ok(
    tidings.call("POST", "/v1/suppressions", {
      channel: "viber",
      phone_number: ada.phone,
      note: `Asked by ${ada.first} on the phone`,
    }),
    201,
  );

  // Her profile gives the list her number, unfiltered.
  const listedNumbers = async () =>
    ((await ok(tidings.call("GET", "/v1/suppressions"))).data as Json[]).map((x) => x.phone_number);
  expect(await listedNumbers()).toEqual([ada.phone, ada.phone]);

  // The export before erasure: all of Ada, nothing of Bob or Carol.
  const exported = await ok(tidings.call("GET", `/v1/profiles/${adaMade.id}/export`));
  expect(exported.inbound).toEqual([
    expect.objectContaining({ from: ada.phone, to: SENDER, text: "STOP", public_id: adaMade.id }),
  ]);
  expect(exported.suppressions).toEqual([
    expect.objectContaining({
      channel: "sms",
      phone_number: ada.phone,
      source: "inbound",
      keyword: "STOP",
    }),
    expect.objectContaining({
      channel: "viber",
      phone_number: ada.phone,
      source: "api",
      note: `Asked by ${ada.first} on the phone`,
    }),
  ]);
  const text = JSON.stringify(exported);
  expect((exported.messages as Json[]).map((m) => m.message_id)).toEqual(adaMade.messages);
  expect((exported.messages as Json[]).map((m) => m.text)).toEqual([
    `Order ${ada.order}1 is on its way: ${String((exported.messages as Array<{ links: Json[] }>)[0]?.links[0]?.url)}`,
    expect.stringContaining(`Order ${ada.order}2`),
  ]);
  expect(
    (exported.consent_history as Json[]).map((c) => [
      c.channel,
      c.old_value,
      c.new_value,
      c.source,
      c.note,
    ]),
  ).toEqual([
    ["sms", null, true, "api", null],
    ["viber", false, true, "api", null],
    ["sms", true, false, "inbound", null],
    ["viber", true, false, "api", `Asked by ${ada.first} on the phone`],
  ]);
  for (const value of [...needles(bob), ...needles(carol), bobMade.id]) {
    expect(text).not.toContain(value);
  }
  expect(text).toContain(ada.attribute);

  // Before erasure the search finds Ada everywhere she is (and it is the same search as after).
  const dump = dumpOf(tidings);
  const before = await found(dump, needles(ada));
  for (const place of [
    `${ada.phone} in profiles.phone_number`,
    `${ada.phone} in messages.phone_number`,
    `${ada.phone} in deliveries.payload`,
    `${ada.phone} in delivery_attempts.response_body`,
    `${ada.email} in profiles.email`,
    `${ada.order} in messages.body`,
    `${ada.order} in links.original_url`,
    `${ada.phone} in inbound_messages.from_number`,
    `${ada.first} in suppressions.note`,
    `${ada.first} in consent_changes.note`,
  ]) {
    expect(before).toContain(place);
  }

  const erased = await ok(tidings.call("POST", `/v1/profiles/${adaMade.id}/erase`));
  expect(erased.erased).toMatchObject({
    profiles: 1,
    messages: 2,
    links: 2,
    idempotency_records: 2,
    inbound_messages: 1,
    // The suppression's note, and the consent history's copy of it.
    suppression_notes: 2,
  });
  expect((erased.erased as Record<string, number>).webhook_deliveries).toBeGreaterThanOrEqual(4);
  expect((erased.erased as Record<string, number>).delivery_attempts).toBeGreaterThanOrEqual(4);

  expect(await found(dump, needles(ada))).toEqual([]);
  // The same search still finds Bob, in the same organization, and Carol, in the other.
  const kept = await found(dump, [bob.phone, bob.first, bob.order, carol.phone, carol.last]);
  for (const value of [bob.phone, bob.first, bob.order, carol.phone, carol.last]) {
    expect(
      kept.some((hit) => hit.startsWith(`${value} in`)),
      value,
    ).toBe(true);
  }

  // The suppression outlives the erasure: a send to her number is still refused.
  const refused = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: String(campaign.campaign_id),
    recipient: { type: "phone_number", value: ada.phone },
    params: { order: "X1" },
  });
  expect(refused.status).toBe(403);
  expect((await json(refused)).code).toBe("recipient_opted_out");
  expect(await found(dump, [ada.phone])).toEqual([]);

  // GET is 404; the consent history is still readable in the export.
  expect((await tidings.call("GET", `/v1/profiles/${adaMade.id}`)).status).toBe(404);
  const after = await ok(tidings.call("GET", `/v1/profiles/${adaMade.id}/export`));
  // Its sources stay; its notes, which may name her, are gone.
  expect((after.consent_history as Json[]).map((c) => [c.channel, c.source, c.note])).toEqual([
    ["sms", "api", null],
    ["viber", "api", null],
    ["sms", "inbound", null],
    ["viber", "api", null],
  ]);
  // Nothing links the suppressions to the erased profile any more (only her number, which is
  // gone, hashes to them); asked by the number, they are still there, notes cleared.
  expect(after.suppressions).toEqual([]);
  const suppressions = await ok(
    tidings.call("GET", `/v1/suppressions?phone_number=${encodeURIComponent(ada.phone)}`),
  );
  expect(
    (suppressions.data as Json[]).map((x) => [x.channel, x.source, x.keyword, x.note]).sort(),
  ).toEqual([
    ["sms", "inbound", "STOP", null],
    ["viber", "api", null, null],
  ]);
  // Unfiltered, the list knows her number no more.
  expect(await listedNumbers()).toEqual([null, null]);
  expect(after.inbound).toEqual([
    expect.objectContaining({ from: null, text: null, public_id: adaMade.id }),
  ]);
  expect(after.profile).toMatchObject({ public_id: adaMade.id, phone_number: null, erased: true });
  const message = await ok(tidings.call("GET", `/v1/messages/${adaMade.messages[0]}`));
  expect(message.recipient).toEqual({ public_id: adaMade.id, phone_number: null });
  // Erasing again finds nothing left to erase.
  const again = await ok(tidings.call("POST", `/v1/profiles/${adaMade.id}/erase`));
  expect(Object.values(again.erased as Record<string, number>).every((n) => n === 0)).toBe(true);
}

describe("privacy: erasure and export through tidings serve", () => {
  it("SQLite: nothing of the erased person is left in any table; the export held all of them and no one else", {
    timeout: 90_000,
  }, async () => {
    await privacyThroughServe({}, (t) => sqliteDump(t.databasePath));
  });

  const pgUrl = process.env.TIDINGS_TEST_PG_URL;
  it.skipIf(
    skippedUnless(
      pgUrl !== undefined,
      "erasure on PostgreSQL needs a server; set TIDINGS_TEST_PG_URL to run it",
    ),
  )("PostgreSQL: the same", { timeout: 90_000 }, async () => {
    const schema = `privacy_${randomBytes(6).toString("hex")}`;
    const base = pgUrl ?? "";
    const admin = new pg.Pool({ connectionString: base, max: 1 });
    admin.on("error", () => undefined);
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });
    await privacyThroughServe(
      {
        TIDINGS_DATABASE_URL: `${base}${base.includes("?") ? "&" : "?"}schema=${schema}`,
        TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
      },
      () => postgresDump(base, schema),
    );
  });
});
