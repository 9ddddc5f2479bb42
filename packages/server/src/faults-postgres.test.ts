import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { skippedUnless } from "@tidings/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliProcess,
  runChildCli,
  type ServerProcess,
  startCliProcess,
  startServer,
} from "./testing/child-cli.js";
import { eventually } from "./testing/eventually.js";
import {
  createFaultSender,
  expectNothingLost,
  type FaultSender,
  faultServerEnv,
  startFaultLoad,
  subscribeEveryTopic,
} from "./testing/fault-load.js";
import {
  clusterVersion,
  createPrivateCluster,
  freePort,
  type PrivateCluster,
} from "./testing/private-cluster.js";

/**
 * PostgreSQL going away under a running `tidings serve` with 8 concurrent senders and a
 * receiver on every topic: the process stays up, answers 503 with `Retry-After` while it cannot
 * reach the database, loses no acknowledged send and no report, and recovers by itself.
 */

const PG_URL = process.env.TIDINGS_TEST_PG_URL;

/** A server's environment on `url`, with a secret key of its own (PostgreSQL needs one). */
const faultEnv = (url: string): Record<string, string> => ({
  ...faultServerEnv(url),
  TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
});

const withParams = (url: string, params: string) =>
  `${url}${url.includes("?") ? "&" : "?"}${params}`;

// Skipped without TIDINGS_TEST_PG_URL: the server takes a URL, so PGlite cannot stand in here.
// `.ci/run` always sets it.
describe.skipIf(
  skippedUnless(
    PG_URL !== undefined,
    "dropped PostgreSQL connections need a PostgreSQL server; set TIDINGS_TEST_PG_URL to run them",
  ),
)("PostgreSQL dropping the server's connections", () => {
  const schema = `faults_${randomBytes(6).toString("hex")}`;
  const app = `tidings_${schema}`;
  let env: Record<string, string>;
  let server: ServerProcess;
  let sender: FaultSender;
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  admin.on("error", () => undefined);

  beforeAll(async () => {
    env = faultEnv(withParams(PG_URL ?? "", `schema=${schema}&application_name=${app}`));
    sender = await createFaultSender(env);
    server = await startServer(env);
  });

  afterAll(async () => {
    server?.child.kill("SIGKILL");
    await server?.exited;
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it("keeps serving when its backends are terminated three times under load", async () => {
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const tally = await subscribeEveryTopic(baseUrl, sender);
    const load = startFaultLoad(() => baseUrl, sender);
    try {
      await load.acknowledgedMore(10, "sends before the first fault");
      for (let round = 0; round < 3; round += 1) {
        const { rows } = await admin.query<{ killed: boolean }>(
          "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1",
          [app],
        );
        expect(rows.length).toBeGreaterThan(0);
        await load.acknowledgedMore(10, `sends after termination ${round + 1}`);
      }
    } finally {
      await load.stop();
    }
    await expectNothingLost(server, baseUrl, sender, load, tally);
    await tally.close();
  }, 120_000);
});

const VERSION = clusterVersion();

// A cluster of its own (created with pg_createcluster on a free port, dropped afterwards), so
// stopping it disturbs no other test. That needs root and Debian's postgresql-common tools.
describe.skipIf(
  skippedUnless(
    PG_URL !== undefined && VERSION !== null,
    "stopping a PostgreSQL cluster of its own needs TIDINGS_TEST_PG_URL, root and Debian's pg_createcluster",
  ),
)("a PostgreSQL cluster of its own, stopped and started under load", () => {
  let cluster: PrivateCluster;
  let url: string;
  const ctl = (action: "start" | "stop") => cluster.ctl(action);
  const running: CliProcess[] = [];

  beforeAll(async () => {
    cluster = await createPrivateCluster(VERSION ?? "", "faults", { start: false });
    url = cluster.url;
  }, 120_000);

  afterAll(() => {
    for (const proc of running) proc.child.kill("SIGKILL");
    cluster?.drop();
  });

  it("starts while the database is down, waiting for it, then serves", async () => {
    const env = faultEnv(url);
    const proc = await startCliProcess(
      ["serve", "--port", "0"],
      { ...env, TIDINGS_STARTUP_TIMEOUT_MS: "60000" },
      (line) => line.msg === "storage unavailable at start-up; trying again",
    );
    running.push(proc);
    ctl("start");
    const listening = await eventually("the server to listen once the cluster is up", async () =>
      proc.logs.find((line) => line.msg === "listening"),
    );
    const server = { ...proc, port: Number(listening.port) };
    expect(server.logs.filter((line) => "not_json" in line)).toEqual([]);

    const sender = await createFaultSender(env);
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const tally = await subscribeEveryTopic(baseUrl, sender);
    const load = startFaultLoad(() => baseUrl, sender);
    try {
      await load.acknowledgedMore(10, "sends before the stop");
      ctl("stop");
      await eventually(
        "/readyz to say not ready",
        async () => ((await fetch(`${baseUrl}/readyz`)).status === 503 ? true : undefined),
        10_000,
      );
      await sleep(5000);
      expect(load.statuses.get(503) ?? 0).toBeGreaterThan(0);
      ctl("start");
      await load.acknowledgedMore(10, "sends once the cluster is back", 30_000);
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    } finally {
      await load.stop();
    }
    await expectNothingLost(server, baseUrl, sender, load, tally);
    expect(
      server.logs.some(
        (line) => line.msg === "storage unavailable: answering 503 until it is back",
      ),
    ).toBe(true);
    expect(server.logs.some((line) => line.msg === "storage available again")).toBe(true);
    await tally.close();
  }, 180_000);
});

describe("start-up while PostgreSQL cannot be reached", () => {
  it("tries again, each try a JSON line, then gives up with a JSON line and exit 1", async () => {
    // Nothing listens on a port just freed.
    const url = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
    const env = { ...faultEnv(url), TIDINGS_STARTUP_TIMEOUT_MS: "1200" };
    const run = await runChildCli(["serve", "--port", "0"], env);
    expect(run.code).toBe(1);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { level: string; msg: string; error?: string });
    expect(
      lines.filter((line) => line.msg === "storage unavailable at start-up; trying again").length,
    ).toBeGreaterThan(1);
    expect(lines.at(-1)).toMatchObject({ level: "error", msg: "failed" });
    expect(lines.at(-1)?.error).toMatch(/TIDINGS_STARTUP_TIMEOUT_MS/);
    expect(run.stderr).toBe("");
  });
});
