import { randomBytes } from "node:crypto";
import { latestSchemaVersion, migrations } from "@tidings/adapter-postgres";
import { skippedUnless, waitUntil } from "@tidings/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInProcess } from "../testing/in-process.js";
import { createSender, sendOtp } from "../testing/process-cluster.js";
import { runCli } from "../testing/run-cli.js";
import { startTopicReceiver, type TopicReceiver } from "../testing/webhook-tally.js";

const PG_URL = process.env.TIDINGS_TEST_PG_URL;
const schema = `server_test_${process.pid}_${Date.now()}`;

// Skipped without TIDINGS_TEST_PG_URL: the CLI takes a URL, so PGlite cannot stand in here
// as it does for the adapter's contract suite. `.ci/run` always sets it.
describe.skipIf(
  skippedUnless(
    PG_URL !== undefined,
    "the server on PostgreSQL needs a PostgreSQL server; set TIDINGS_TEST_PG_URL to run them",
  ),
)("the server on PostgreSQL", () => {
  let env: Record<string, string>;
  let receiver: TopicReceiver;

  beforeAll(async () => {
    env = {
      TIDINGS_DATABASE_URL: `${PG_URL}${PG_URL?.includes("?") ? "&" : "?"}schema=${schema}`,
      TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
      TIDINGS_DEV: "1",
      TIDINGS_SANDBOX_DELAY_MS: "20",
      TIDINGS_LOG_LEVEL: "warn",
    };
    receiver = await startTopicReceiver();
  });

  afterAll(async () => {
    await receiver.close();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it("migrates once, then serves sends and delivers their webhooks", async () => {
    expect((await runCli(["migrate", "--json"], env)).json()).toEqual({
      applied: migrations.map((m) => m.version),
      version: latestSchemaVersion,
    });
    expect((await runCli(["migrate", "--json"], env)).json()).toEqual({
      applied: [],
      version: latestSchemaVersion,
    });
    const sender = await createSender(env, "messages:send");

    const server = startInProcess(process.cwd(), ["serve", "--port", "0"], {
      ...env,
      TIDINGS_LOG_LEVEL: "info",
    });
    const { port } = await server.waitForLog("listening");
    const sent = await sendOtp(`http://127.0.0.1:${port}`, sender, { webhookUrl: receiver.url });
    expect(sent.status).toBe(200);
    await waitUntil("the message.delivered webhook", 5_000, () =>
      receiver.topics.includes("message.delivered"),
    );
    expect(receiver.topics).toEqual(expect.arrayContaining(["message.sent", "message.delivered"]));
    expect(await server.stop()).toBe(0);
  });

  it("runs a worker that listens for delivery notifications", async () => {
    const worker = startInProcess(process.cwd(), ["worker"], { ...env, TIDINGS_LOG_LEVEL: "info" });
    const started = await worker.waitForLog("worker started");
    expect(started.listening_for_notifications).toBe(true);
    // Said at start-up exactly when the server's autovacuum is off (as on CI's own cluster).
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const { rows } = await client.query<{ on: string }>(
      "SELECT current_setting('autovacuum') AS on",
    );
    await client.end();
    const warned = worker.logs().some((line) => String(line.msg).includes("autovacuum is off"));
    expect(warned).toBe(rows[0]?.on === "off");
    expect(await worker.stop()).toBe(0);
  });

  it("says in the log when a listening connection breaks and when it listens again", async () => {
    // A name of its own, so only this worker's connections are cut.
    const name = `tidings_listener_test_${process.pid}`;
    const worker = startInProcess(process.cwd(), ["worker"], {
      ...env,
      TIDINGS_DATABASE_URL: `${env.TIDINGS_DATABASE_URL}&application_name=${name}`,
      TIDINGS_LOG_LEVEL: "info",
    });
    await worker.waitForLog("worker started");
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const { rowCount } = await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = $1 AND query LIKE 'LISTEN %'`,
        [name],
      );
      // Both listeners: deliveries due, and API key changes (kept in memory by default).
      expect(rowCount).toBe(2);
      for (const listener of ["deliveries due", "API key, campaign and subscription changes"]) {
        const lost = await worker.waitForLog(
          "PostgreSQL listener lost; reconnecting",
          (line) => line.listener === listener,
        );
        expect(lost.level).toBe("warn");
        await worker.waitForLog(
          "PostgreSQL listener reconnected",
          (line) => line.listener === listener,
        );
      }
    } finally {
      await client.end();
    }
    expect(await worker.stop()).toBe(0);
  });

  it("refuses to start on PostgreSQL without TIDINGS_SECRET_KEY", async () => {
    const { TIDINGS_SECRET_KEY: _unset, ...withoutKey } = env;
    const run = await runCli(["migrate"], withoutKey);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("TIDINGS_SECRET_KEY must be set");
  });
});
