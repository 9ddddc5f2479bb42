import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type Env, TIDINGS_BIN, tidingsCli } from "./tidings-process.js";

export type Database = "sqlite" | "postgres";

/** The PostgreSQL the benchmarks may use: TIDINGS_BENCH_PG_URL, else the local test database. */
export const PG_URL = process.env.TIDINGS_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh, empty Tidings database with one organization, one API key and one OTP campaign. */
export interface Fixture {
  database: Database;
  /** The environment `tidings serve` and the CLI run with. */
  env: Env;
  /** The SQLite file, when the database is SQLite. */
  sqlitePath: string | null;
  /** The PostgreSQL schema, when the database is PostgreSQL. */
  pgSchema: string | null;
  orgId: string;
  token: string;
  campaignId: string;
  /** Removes the database (the temporary directory, or the PostgreSQL schema). */
  dispose(): Promise<void>;
}

/**
 * The configuration every benchmark serves with: the send rate limit lifted (the most the
 * configuration accepts, per second), logs at `warn` so request logging is not measured, and
 * `NODE_ENV=production` as docs/production.md asks (no development-only checks).
 */
export const BENCH_ENV: Env = {
  TIDINGS_SEND_RATE_LIMIT: "9999999/1s",
  TIDINGS_LOG_LEVEL: "warn",
  NODE_ENV: "production",
};

/** The OTP template of the send benchmarks; Viber, so the parameter validator runs. */
export const OTP_TEMPLATE = "Your {{brand}} code is {{pin}}. It expires in 10 minutes.";

/** The `k`th OTP send of a run to `phoneNumber`, through the fixture's campaign. */
export const otpSend = (campaignId: string, phoneNumber: string, k: number) => ({
  method: "POST" as const,
  path: "/v1/messages/send",
  body: JSON.stringify({
    campaign_id: campaignId,
    recipient: { type: "phone_number", value: phoneNumber },
    params: { brand: "Acme", pin: String(100_000 + (k % 900_000)) },
  }),
});

/**
 * Creates the database and its organization, key and active OTP campaign with the CLI of the
 * build at `bin` (so its own migrations make the schema); on PostgreSQL a new schema of the
 * database at `pgUrl`.
 */
export async function createFixture(
  database: Database,
  pgUrl = PG_URL,
  bin = TIDINGS_BIN,
): Promise<Fixture> {
  const secretKey = randomBytes(32).toString("hex");
  let env: Env;
  let sqlitePath: string | null = null;
  let pgSchema: string | null = null;
  let dir: string | null = null;
  if (database === "sqlite") {
    dir = mkdtempSync(join(tmpdir(), "tidings-bench-"));
    sqlitePath = join(dir, "tidings.db");
    env = {
      ...BENCH_ENV,
      TIDINGS_DATABASE_URL: `sqlite:${sqlitePath}`,
      TIDINGS_SECRET_KEY: secretKey,
    };
  } else {
    pgSchema = `tidings_bench_${randomBytes(4).toString("hex")}`;
    const url = new URL(pgUrl);
    url.searchParams.set("schema", pgSchema);
    env = { ...BENCH_ENV, TIDINGS_DATABASE_URL: url.toString(), TIDINGS_SECRET_KEY: secretKey };
  }
  const org = await tidingsCli<{ org_id: string }>(["orgs", "create", "--name", "Bench"], env, bin);
  const key = await tidingsCli<{ token: string }>(
    [
      "keys",
      "create",
      "--org",
      org.org_id,
      "--scopes",
      "profiles:read,profiles:write,messages:send,messages:read,webhooks:manage",
    ],
    env,
    bin,
  );
  const campaign = await tidingsCli<{ campaign_id: string }>(
    [
      "campaigns",
      "create",
      "--org",
      org.org_id,
      "--name",
      "Bench OTP",
      "--channel",
      "viber",
      "--category",
      "otp",
      "--sender",
      "Bench",
      "--template",
      OTP_TEMPLATE,
      "--active",
    ],
    env,
    bin,
  );
  return {
    database,
    env,
    sqlitePath,
    pgSchema,
    orgId: org.org_id,
    token: key.token,
    campaignId: campaign.campaign_id,
    async dispose() {
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
      if (pgSchema !== null) await dropSchema(pgSchema, pgUrl);
    },
  };
}

/** Drops a benchmark's PostgreSQL schema (of the database at `url`). */
export async function dropSchema(schema: string, url = PG_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
