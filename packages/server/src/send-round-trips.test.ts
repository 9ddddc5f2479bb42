import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import * as http from "node:http";
import { cleanupsEach, skippedUnless } from "@tidings/core/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { type ServedTidings, serveTidings } from "./testing/served-tidings.js";

// What a send costs PostgreSQL, counted through the real server: every call of pg's
// `Client#query` made on behalf of one HTTP request (each waits for one ReadyForQuery, so one
// call is one round trip; a transaction's BEGIN goes with its first statement). Calls are
// tied to their request by an AsyncLocalStorage entered where node:http hands the request to
// the server, so the server's background work (sweeps, the key notices' heartbeat) is not
// counted. The sandbox's reports are held back a day, so a send is the send alone.

const pgUrl = process.env.TIDINGS_TEST_PG_URL;
const cleanups = cleanupsEach();
const SCOPES = "profiles:read,profiles:write,messages:send,messages:read,settings:manage";

/** The statements one request sent, by the request it was made for. */
interface Request {
  method: string;
  url: string;
  statements: string[];
}
const requestOf = new AsyncLocalStorage<Request>();
const seen: Request[] = [];

const emit = http.Server.prototype.emit as (this: http.Server, ...args: unknown[]) => boolean;
const query = pg.Client.prototype.query;
/** better-sqlite3's statement class, whose calls are counted too (SQLite's statements). */
const statement = Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1")) as Record<
  "run" | "get" | "all" | "iterate",
  (...args: unknown[]) => unknown
> & { source: string };
const statementCalls = {
  run: statement.run,
  get: statement.get,
  all: statement.all,
  iterate: statement.iterate,
};
const exec = Database.prototype.exec;
beforeAll(() => {
  for (const [name, call] of Object.entries(statementCalls)) {
    statement[name as keyof typeof statementCalls] = function (
      this: { source: string },
      ...args: unknown[]
    ) {
      requestOf.getStore()?.statements.push(this.source.replace(/\s+/g, " "));
      return call.apply(this, args);
    };
  }
  Database.prototype.exec = function (this: Database.Database, source: string) {
    requestOf.getStore()?.statements.push(source.replace(/\s+/g, " "));
    return exec.call(this, source);
  };
  http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
    if (event !== "request") return emit.apply(this, [event, ...args]);
    const request = args[0] as http.IncomingMessage;
    const record: Request = {
      method: request.method ?? "",
      url: request.url ?? "",
      statements: [],
    };
    seen.push(record);
    return requestOf.run(record, () => emit.apply(this, [event, ...args]));
  } as typeof http.Server.prototype.emit;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
    requestOf.getStore()?.statements.push((text ?? "(a submittable)").replace(/\s+/g, " "));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});
afterAll(() => {
  http.Server.prototype.emit = emit as typeof http.Server.prototype.emit;
  pg.Client.prototype.query = query;
  Object.assign(statement, statementCalls);
  Database.prototype.exec = exec;
});

/** A fresh PostgreSQL schema's environment for `serve`, dropped after the test. */
function postgresEnv(): Record<string, string> {
  const schema = `trips_${randomBytes(6).toString("hex")}`;
  const base = pgUrl ?? "";
  const admin = new pg.Pool({ connectionString: base, max: 1 });
  admin.on("error", () => undefined);
  cleanups.push(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  return {
    // Keys, campaigns and settings kept for ten minutes, so none is read again during the test.
    TIDINGS_DATABASE_URL: `${base}${base.includes("?") ? "&" : "?"}schema=${schema}&key_memory_ms=600000`,
    TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
    TIDINGS_SANDBOX_DELAY_MS: "86400000",
    TIDINGS_SEND_RATE_LIMIT: "100000/60s",
  };
}

/** A send to `phone` and the statements it made. */
async function countedSend(
  tidings: ServedTidings,
  phone: string,
): Promise<{ status: number; statements: string[] }> {
  const before = seen.length;
  const response = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: tidings.campaignId,
    recipient: { type: "phone_number", value: phone },
    params: { pin: "1234" },
  });
  await response.arrayBuffer();
  const mine = seen.slice(before).filter((r) => r.url === "/v1/messages/send");
  expect(mine).toHaveLength(1);
  return { status: response.status, statements: mine[0]?.statements ?? [] };
}

/**
 * Sends to `phone` until a send makes `expected` round trips (the server keeps the campaign,
 * the key and the settings in memory once its change notices are seen to arrive, within about
 * a second of a change), then three more, each of which must make exactly `expected`.
 */
async function roundTripsOf(
  tidings: ServedTidings,
  phone: string,
  status: number,
  expected: number,
): Promise<string[]> {
  let last: string[] = [];
  await eventually(
    `a send to ${phone} in ${expected} round trips`,
    async () => {
      last = (await countedSend(tidings, phone)).statements;
      return last.length <= expected || undefined;
    },
    5_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; the last send's statements:\n${last.join("\n")}`);
  });
  for (let i = 0; i < 3; i++) {
    const send = await countedSend(tidings, phone);
    expect(send.status).toBe(status);
    expect(send.statements, send.statements.join("\n")).toHaveLength(expected);
    last = send.statements;
  }
  return last;
}

describe.skipIf(
  skippedUnless(
    pgUrl !== undefined,
    "round trips of a send on PostgreSQL need a PostgreSQL server; set TIDINGS_TEST_PG_URL to run them",
  ),
)("round trips of a send on PostgreSQL", () => {
  it("a plain send, one with every abuse limit on, and one to a suppressed number each make 3", async () => {
    const tidings = await serveTidings(postgresEnv(), { scopes: SCOPES });
    cleanups.push(() => tidings.stop());
    const person = "+14155550101";
    const suppressed = "+14155550102";

    // A plain send: the key's rate limit; BEGIN with the profile's read (and its
    // suppressions); the message, its event and COMMIT.
    expect((await countedSend(tidings, person)).status).toBe(200);
    await roundTripsOf(tidings, person, 200, 3);

    // A number no profile holds yet: one more, the profile's insert.
    const fresh = await countedSend(tidings, "+14155550103");
    expect(fresh.status).toBe(200);
    expect(fresh.statements, fresh.statements.join("\n")).toHaveLength(4);

    // A suppressed number is refused in the same number of round trips, the last a ROLLBACK.
    const added = await tidings.call("POST", "/v1/suppressions", {
      channel: "sms",
      phone_number: suppressed,
    });
    expect(added.status).toBe(201);
    await roundTripsOf(tidings, suppressed, 403, 3);

    // Every limit on, set high enough not to trip: counted in the rate limit's statement.
    const settings = await tidings.call("PATCH", "/v1/settings", {
      destination_limits: { per_hour: 1_000_000, per_day: 1_000_000 },
      prefix_limits: { per_hour: 1_000_000 },
      country_daily_limits: { US: 1_000_000 },
    });
    expect(settings.status).toBe(200);
    const limited = await roundTripsOf(tidings, person, 200, 3);
    expect(limited[0]).toContain("send_hit");
    await roundTripsOf(tidings, suppressed, 403, 3);

    // The key's rate-limit window and the limits' counters write no WAL.
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    try {
      const schema = new URL(tidings.env.TIDINGS_DATABASE_URL ?? "").searchParams.get("schema");
      const { rows } = await admin.query(
        `SELECT relname, relpersistence FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND relname IN
           ('destination_hits', 'destination_totals', 'rate_limit_hits', 'rate_limit_counts')
         ORDER BY relname`,
        [schema],
      );
      expect(rows).toEqual([
        { relname: "destination_hits", relpersistence: "u" },
        { relname: "destination_totals", relpersistence: "u" },
        { relname: "rate_limit_counts", relpersistence: "u" },
        { relname: "rate_limit_hits", relpersistence: "u" },
      ]);
    } finally {
      await admin.end();
    }
  });
});

/** The statements from the last `BEGIN IMMEDIATE` before the one matching `pattern` to its COMMIT. */
function writeTransactionOf(statements: string[], pattern: RegExp): string[] {
  const at = statements.findIndex((text) => pattern.test(text));
  expect(at, `a statement matching ${pattern}`).toBeGreaterThanOrEqual(0);
  const begin = statements.slice(0, at).lastIndexOf("BEGIN IMMEDIATE");
  const end = statements.indexOf("COMMIT", at);
  return statements.slice(begin, end + 1);
}

// On SQLite every statement is a call into the process's own database, and reads of several
// callers (the server's sweeps among them) may share one read transaction, so its count is
// not exact: what a send runs is checked statement by statement instead.
describe("statements of a send on SQLite", () => {
  it("the suppressions ride on the profile's read, the limits on the rate limit's transaction, the campaign is read once", async () => {
    const tidings = await serveTidings(
      { TIDINGS_SANDBOX_DELAY_MS: "86400000", TIDINGS_SEND_RATE_LIMIT: "100000/60s" },
      { scopes: SCOPES },
    );
    cleanups.push(() => tidings.stop());
    const person = "+14155550101";
    const suppressed = "+14155550102";
    const sendChecked = async (phone: string, status: number) => {
      const send = await countedSend(tidings, phone);
      const listing = send.statements.join("\n");
      expect(send.status, listing).toBe(status);
      const suppressions = send.statements.filter((text) => text.includes(" suppressions "));
      expect(suppressions, listing).toHaveLength(1);
      expect(suppressions[0], listing).toContain(" profiles ");
      expect(
        send.statements.filter((text) => text.includes(" FROM campaigns ")).length,
        listing,
      ).toBeLessThanOrEqual(1);
      return send.statements;
    };
    await sendChecked(person, 200);
    await sendChecked(person, 200);
    const added = await tidings.call("POST", "/v1/suppressions", {
      channel: "sms",
      phone_number: suppressed,
    });
    expect(added.status).toBe(201);
    await sendChecked(suppressed, 403);
    const settings = await tidings.call("PATCH", "/v1/settings", {
      destination_limits: { per_hour: 1_000_000, per_day: 1_000_000 },
      prefix_limits: { per_hour: 1_000_000 },
      country_daily_limits: { US: 1_000_000 },
    });
    expect(settings.status).toBe(200);
    const limited = await sendChecked(person, 200);
    const counted = writeTransactionOf(limited, /^INSERT INTO rate_limit_hits /);
    expect(counted.filter((text) => text.startsWith("INSERT INTO destination_hits "))).toHaveLength(
      2,
    );
    expect(counted.some((text) => text.startsWith("INSERT INTO destination_totals "))).toBe(true);
    await sendChecked(suppressed, 403);
  });
});
