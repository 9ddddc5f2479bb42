import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { skippedUnless, waitUntil } from "@tidings/core/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliEntry,
  type CliProcess,
  runChildCliJson,
  startCliProcess,
  startServer,
  stopChild,
} from "./testing/child-cli.js";
import { startTopicReceiver, type TopicReceiver } from "./testing/webhook-tally.js";
import { builtCli } from "./testing/workspace-build.js";

/**
 * docs/production.md, step by step, on the local PostgreSQL: create the database, make the
 * secret key, build, migrate, run `serve` and `worker` as separate processes (as a process
 * manager would, with HOST set), check health, send through them, stop them with SIGTERM,
 * upgrade (migrate again, restart, data still there); and the SQLite backups of step 8.
 */

const PG_URL = process.env.TIDINGS_TEST_PG_URL;
const BUILD_TIMEOUT_MS = 600_000;

let dir: string;
let cli: CliEntry;
let receiver: TopicReceiver;
const running: CliProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-production-"));
  receiver = await startTopicReceiver();
  // Step 3: `pnpm build`, made in a temporary copy of the workspace.
  cli = await builtCli();
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  for (const process of running) process.child.kill("SIGKILL");
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

const tidings = <T>(env: Record<string, string>, ...args: string[]): Promise<T> =>
  runChildCliJson<T>(args, env, cli);

describe.skipIf(
  skippedUnless(
    PG_URL !== undefined,
    "the production steps run on a PostgreSQL server; set TIDINGS_TEST_PG_URL to run them",
  ),
)("running in production on PostgreSQL", () => {
  const database = `tidings_production_${process.pid}_${Date.now()}`;
  let env: Record<string, string>;

  beforeAll(async () => {
    // Step 1: create the database.
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${database}"`);
    await admin.end();
    const url = new URL(PG_URL ?? "");
    url.pathname = `/${database}`;
    // Steps 2 and 4: the secret key (`openssl rand -base64 32`) and the environment file.
    env = {
      PATH: process.env.PATH ?? "",
      TIDINGS_DATABASE_URL: url.toString(),
      TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
      HOST: "127.0.0.1",
      PORT: "0",
      TIDINGS_LOG_LEVEL: "info",
      // Only for this test's receiver on 127.0.0.1; production leaves it unset.
      TIDINGS_DEV: "1",
      TIDINGS_SANDBOX_DELAY_MS: "50",
    };
  });

  afterAll(async () => {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
    // Dropping a database waits for a checkpoint, which a busy server takes its time over.
  }, 180_000);

  it("migrates, serves and works, drains on SIGTERM, and upgrades in place", async () => {
    // Step 5: migrate, once; a second run has nothing left to do.
    const first = await tidings<{ applied: number[] }>(env, "migrate");
    expect(first.applied.length).toBeGreaterThan(0);
    expect((await tidings<{ applied: number[] }>(env, "migrate")).applied).toEqual([]);

    // Step 6: serve and a worker, each its own process.
    const serve = await startServer(env, cli);
    running.push(serve);
    expect(serve.logs.find((line) => line.msg === "listening")?.host).toBe("127.0.0.1");
    const worker = await startCliProcess(
      ["worker"],
      env,
      (line) => line.msg === "worker started",
      cli,
    );
    running.push(worker);
    const base = `http://127.0.0.1:${serve.port}`;

    // Step 7: health checks.
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: "ready" });

    const org = await tidings<{ org_id: string }>(env, "orgs", "create", "--name", "Prod");
    const key = await tidings<{ token: string }>(
      env,
      ...["keys", "create", "--org", org.org_id, "--scopes", "messages:send,profiles:read"],
    );
    const campaign = await tidings<{ campaign_id: string }>(
      env,
      ...["campaigns", "create", "--org", org.org_id, "--name", "Login", "--channel", "sms"],
      ...["--category", "otp", "--sender", "Prod", "--template", "Code {{pin}}", "--active"],
    );
    const auth = { authorization: `Bearer ${key.token}`, "content-type": "application/json" };
    const sent = await fetch(`${base}/v1/messages/send`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        campaign_id: campaign.campaign_id,
        recipient: { type: "phone_number", value: "+14155550101" },
        params: { pin: "2468" },
        webhook_url: receiver.url,
      }),
    });
    expect(sent.status).toBe(200);
    await waitUntil("message.delivered", 10_000, () =>
      receiver.topics.includes("message.delivered"),
    );

    expect(await stopChild(worker)).toBe(0);
    expect(await stopChild(serve)).toBe(0);

    // Step 9: an upgrade: migrate (nothing pending here), start again; the data is there.
    expect((await tidings<{ applied: number[] }>(env, "migrate")).applied).toEqual([]);
    const restarted = await startServer(env, cli);
    running.push(restarted);
    const found = await fetch(
      `http://127.0.0.1:${restarted.port}/v1/profiles?phone_number=%2B14155550101`,
      { headers: auth },
    );
    expect(((await found.json()) as { data: unknown[] }).data).toHaveLength(1);
    expect(await stopChild(restarted)).toBe(0);
  });
});

describe("running in production: SQLite backups", () => {
  it("takes consistent online backups with sqlite3 .backup and better-sqlite3 while serving", async () => {
    const file = join(dir, "tidings.db");
    const env = {
      PATH: process.env.PATH ?? "",
      TIDINGS_DATABASE_URL: `sqlite:${file}`,
      HOST: "127.0.0.1",
      PORT: "0",
      TIDINGS_LOG_LEVEL: "warn",
    };
    const serve = await startServer({ ...env, TIDINGS_LOG_LEVEL: "info" }, cli);
    running.push(serve);
    const org = await tidings<{ org_id: string }>(env, "orgs", "create", "--name", "Lite");
    const key = await tidings<{ token: string }>(
      env,
      ...["keys", "create", "--org", org.org_id, "--scopes", "profiles:write"],
    );
    const created = await fetch(`http://127.0.0.1:${serve.port}/v1/profiles`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.token}`, "content-type": "application/json" },
      body: JSON.stringify({ phone_number: "+14155550123" }),
    });
    expect(created.status).toBe(201);

    const profilesIn = (backup: string) => {
      const db = new Database(backup, { readonly: true });
      try {
        return db.prepare("SELECT phone_number FROM profiles").all();
      } finally {
        db.close();
      }
    };

    // The online backup API, as docs/production.md shows it, while the server runs.
    const viaApi = join(dir, "backup-api.db");
    const live = new Database(file, { readonly: true });
    await live.backup(viaApi);
    live.close();
    expect(profilesIn(viaApi)).toEqual([{ phone_number: "+14155550123" }]);

    const sqlite3 = spawnSync("sqlite3", ["-version"]);
    if (sqlite3.error) {
      console.warn(
        "production.test.ts: the sqlite3 command is not installed; its backup is skipped.",
      );
    } else {
      const viaCli = join(dir, "backup-cli.db");
      const backup = spawnSync("sqlite3", [file, `.backup ${viaCli}`], { encoding: "utf8" });
      expect(backup.status, backup.stderr).toBe(0);
      expect(profilesIn(viaCli)).toEqual([{ phone_number: "+14155550123" }]);
    }
    expect(await stopChild(serve)).toBe(0);
  });
});
