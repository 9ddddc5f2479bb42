import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { latestSchemaVersion, migrations } from "@tidings/adapter-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli/main.js";
import { createSender } from "../testing/process-cluster.js";
import { Captured, runCli } from "../testing/run-cli.js";

const PG_URL = process.env.TIDINGS_TEST_PG_URL;
const schema = `server_test_${process.pid}_${Date.now()}`;

// Skipped without TIDINGS_TEST_PG_URL: the CLI takes a URL, so PGlite cannot stand in here
// as it does for the adapter's contract suite. `.ci/run` always sets it.
describe.skipIf(PG_URL === undefined)("the server on PostgreSQL", () => {
  let env: Record<string, string>;
  let receiver: Server;
  let receiverUrl: string;
  const topics: string[] = [];

  beforeAll(async () => {
    env = {
      TIDINGS_DATABASE_URL: `${PG_URL}${PG_URL?.includes("?") ? "&" : "?"}schema=${schema}`,
      TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
      TIDINGS_DEV: "1",
      TIDINGS_SANDBOX_DELAY_MS: "20",
      TIDINGS_LOG_LEVEL: "warn",
    };
    receiver = createServer((req, res) => {
      topics.push(String(req.headers["x-service-topic"]));
      req.resume();
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
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
    const { token, campaignId } = await createSender(env, "messages:send");

    const stdout = new Captured();
    let stop: (signal: string) => void = () => undefined;
    const exit = main(["serve", "--port", "0"], {
      env: { ...env, TIDINGS_LOG_LEVEL: "info" },
      cwd: process.cwd(),
      stdout,
      stderr: new Captured(),
      waitForShutdown: () =>
        new Promise((resolve) => {
          stop = resolve;
        }),
    });
    let port = 0;
    for (let i = 0; i < 200 && port === 0; i++) {
      const line = stdout
        .text()
        .split("\n")
        .find((l) => l.includes('"listening"'));
      if (line) port = (JSON.parse(line) as { port: number }).port;
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const sent = await fetch(`http://127.0.0.1:${port}/v1/messages/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        campaign_id: campaignId,
        recipient: { type: "phone_number", value: "+14155550101" },
        params: { pin: "1234" },
        webhook_url: receiverUrl,
      }),
    });
    expect(sent.status).toBe(200);
    for (let i = 0; i < 200 && !topics.includes("message.delivered"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(topics).toEqual(expect.arrayContaining(["message.sent", "message.delivered"]));
    stop("SIGTERM");
    expect(await exit).toBe(0);
  });

  it("runs a worker that listens for delivery notifications", async () => {
    const stdout = new Captured();
    let stop: (signal: string) => void = () => undefined;
    const exit = main(["worker"], {
      env: { ...env, TIDINGS_LOG_LEVEL: "info" },
      cwd: process.cwd(),
      stdout,
      stderr: new Captured(),
      waitForShutdown: () =>
        new Promise((resolve) => {
          stop = resolve;
        }),
    });
    for (let i = 0; i < 200 && !stdout.text().includes("worker started"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(stdout.text()).toContain('"listening_for_notifications":true');
    // Said at start-up exactly when the server's autovacuum is off (as on CI's own cluster).
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const { rows } = await client.query<{ on: string }>(
      "SELECT current_setting('autovacuum') AS on",
    );
    await client.end();
    expect(stdout.text().includes("autovacuum is off")).toBe(rows[0]?.on === "off");
    stop("SIGTERM");
    expect(await exit).toBe(0);
  });

  it("refuses to start on PostgreSQL without TIDINGS_SECRET_KEY", async () => {
    const { TIDINGS_SECRET_KEY: _unset, ...withoutKey } = env;
    const run = await runCli(["migrate"], withoutKey);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("TIDINGS_SECRET_KEY must be set");
  });
});
