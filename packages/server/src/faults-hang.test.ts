import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { skippedUnless, within } from "@tidings/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { type CliProcess, type ServerProcess, startServer } from "./testing/child-cli.js";
import { eventually } from "./testing/eventually.js";
import {
  createFaultSender,
  expectNothingLost,
  type FaultLoad,
  faultServerEnv,
  startFaultLoad,
  subscribeEveryTopic,
} from "./testing/fault-load.js";
import {
  clusterVersion,
  createPrivateCluster,
  type PrivateCluster,
} from "./testing/private-cluster.js";

/**
 * A database that stops answering while its connections stay open (a partition that drops
 * packets, a stalled disk, a lock held by a stuck process), under `tidings serve` with its
 * default `TIDINGS_STORAGE_TIMEOUT_MS` and 8 concurrent senders: no send waits more than 5 s
 * for its answer, `/readyz` answers 503 within 2 s, nothing acknowledged is lost, every
 * lifecycle completes afterwards, and the server is ready again within 2 s of the database.
 */

/** The most a request may wait for its answer while the database hangs. */
const ANSWER_WITHIN_MS = 5000;
/** The most `/readyz` may take to answer, and the server to be ready again after the fault. */
const READY_WITHIN_MS = 2000;
/** How long the fault lasts: several times the default storage timeout (2 s). */
const FAULT_MS = 8000;

/** `faultServerEnv(url)` with the default storage timeout, which is what is shown here. */
function hangEnv(url: string): Record<string, string> {
  const { TIDINGS_STORAGE_TIMEOUT_MS: _, ...env } = faultServerEnv(url);
  return env;
}

/** `/readyz`'s status, or `null` when it gave no answer within `READY_WITHIN_MS`. */
async function readiness(baseUrl: string): Promise<number | null> {
  try {
    const answer = await fetch(`${baseUrl}/readyz`, {
      signal: AbortSignal.timeout(READY_WITHIN_MS),
    });
    await answer.text();
    return answer.status;
  } catch {
    return null;
  }
}

/** Resolves once `/readyz` says ready, polling; rejects unless that is within `READY_WITHIN_MS`. */
const readyAgain = (baseUrl: string, since: string): Promise<void> =>
  within(
    READY_WITHIN_MS,
    `/readyz to say ready again after ${since}`,
    (async () => {
      for (let i = 0; i < 200; i += 1) {
        if ((await readiness(baseUrl)) === 200) return;
        await sleep(20);
      }
    })(),
  );

/**
 * What the fault did to the load: how many sends were refused, how long the longest waited for
 * its answer as the client saw it, and as the server's request log says it took to answer.
 */
const measured = (load: FaultLoad, server: CliProcess, more: Record<string, unknown>) => ({
  acknowledged: load.acknowledged.size,
  refused_503: load.statuses.get(503) ?? 0,
  longest_wait_ms: load.longestWaitMs(),
  longest_logged_ms: Math.max(
    0,
    ...server.logs
      .filter((line) => line.msg === "request" && line.path === "/v1/messages/send")
      .map((line) => Number(line.duration_ms)),
  ),
  ...more,
});

const VERSION = clusterVersion();

// A cluster of its own: freezing the machine's shared one would hang every other test on it.
describe.skipIf(
  skippedUnless(
    VERSION !== null,
    "freezing a PostgreSQL cluster of its own needs root and Debian's pg_createcluster",
  ),
)("a PostgreSQL cluster of its own frozen with SIGSTOP under load", () => {
  let cluster: PrivateCluster | undefined;
  let server: ServerProcess | undefined;

  afterAll(() => {
    server?.child.kill("SIGKILL");
    cluster?.drop();
  });

  it("answers every request within 5 s, is not ready within 2 s, and recovers within 2 s losing nothing", async () => {
    cluster = await createPrivateCluster(VERSION ?? "", "hang", { start: true });
    const env = {
      ...hangEnv(cluster.url),
      TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
    };
    const sender = await createFaultSender(env);
    server = await startServer(env);
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const tally = await subscribeEveryTopic(baseUrl, sender);
    const load = startFaultLoad(() => baseUrl, sender, 8, { answerWithinMs: ANSWER_WITHIN_MS });
    let readyzDuringFreeze: number | null = null;
    let readyzAnsweredMs = 0;
    let recoveredMs = 0;
    try {
      await load.acknowledgedMore(10, "sends before the freeze");
      cluster.freeze();
      const frozenAt = Date.now();
      try {
        await sleep(300);
        const asked = Date.now();
        readyzDuringFreeze = await readiness(baseUrl);
        readyzAnsweredMs = Date.now() - asked;
        await eventually(
          "a send refused with 503 while the database is frozen",
          async () => ((load.statuses.get(503) ?? 0) > 0 ? true : undefined),
          FAULT_MS,
        );
        await sleep(Math.max(0, FAULT_MS - (Date.now() - frozenAt)));
      } finally {
        cluster.thaw();
      }
      const thawedAt = Date.now();
      await readyAgain(baseUrl, "the thaw");
      recoveredMs = Date.now() - thawedAt;
      await load.acknowledgedMore(10, "sends after the thaw", 30_000);
    } finally {
      await load.stop();
    }
    console.info(
      "PostgreSQL frozen:",
      measured(load, server, {
        readyz_during_freeze: readyzDuringFreeze,
        readyz_answered_ms: readyzAnsweredMs,
        ready_again_ms: recoveredMs,
      }),
    );
    expect(readyzDuringFreeze).toBe(503);
    expect(load.late).toEqual([]);
    await expectNothingLost(server, baseUrl, sender, load, tally);
    expect(
      server.logs.some(
        (line) => line.msg === "storage unavailable: answering 503 until it is back",
      ),
    ).toBe(true);
    expect(server.logs.some((line) => line.msg === "storage available again")).toBe(true);
    await tally.close();
  }, 240_000);
});

/**
 * A process holding SQLite's write lock (`BEGIN IMMEDIATE`) until told to let go: its stdout
 * says `locked`, then `released`.
 */
const LOCK_HOLDER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.pragma("busy_timeout = 10000");
db.exec("BEGIN IMMEDIATE");
process.stdout.write("locked\\n");
const release = () => { db.exec("COMMIT"); db.close(); process.stdout.write("released\\n"); process.exit(0); };
process.stdin.once("data", release);
setTimeout(release, 60000);
`;

describe("SQLite's write lock held by another process for longer than the storage timeout", () => {
  const dir = mkdtempSync(join(tmpdir(), "tidings-hang-"));
  const running: Array<Pick<CliProcess, "child">> = [];

  afterAll(() => {
    for (const proc of running) proc.child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers every request within 5 s with 503 or 200, then recovers, losing nothing", async () => {
    const path = join(dir, "tidings.db");
    const env = hangEnv(`sqlite:${path}`);
    const sender = await createFaultSender(env);
    const server = await startServer(env);
    running.push(server);
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const tally = await subscribeEveryTopic(baseUrl, sender);
    const load = startFaultLoad(() => baseUrl, sender, 8, { answerWithinMs: ANSWER_WITHIN_MS });
    let readyzDuringLock: number | null = null;
    let recoveredMs = 0;
    try {
      await load.acknowledgedMore(10, "sends before the lock");
      const betterSqlite = createRequire(import.meta.url).resolve("better-sqlite3");
      const holder = spawn(process.execPath, ["-e", LOCK_HOLDER, betterSqlite, path]);
      running.push({ child: holder });
      const lines = createInterface({ input: holder.stdout });
      const said = (word: string) =>
        within(
          20_000,
          `the lock holder to say ${word}`,
          new Promise<void>((resolve) => {
            lines.on("line", (line) => {
              if (line === word) resolve();
            });
          }),
        );
      const released = said("released");
      await said("locked");
      const lockedAt = Date.now();
      try {
        await eventually(
          "a send refused with 503 while the lock is held",
          async () => ((load.statuses.get(503) ?? 0) > 0 ? true : undefined),
          FAULT_MS,
        );
        readyzDuringLock = await readiness(baseUrl);
        await sleep(Math.max(0, FAULT_MS - (Date.now() - lockedAt)));
      } finally {
        holder.stdin.end("release\n");
      }
      await released;
      const releasedAt = Date.now();
      await readyAgain(baseUrl, "the lock was released");
      await load.acknowledgedMore(10, "sends after the lock", 30_000);
      recoveredMs = Date.now() - releasedAt;
    } finally {
      await load.stop();
    }
    console.info(
      "SQLite locked:",
      measured(load, server, {
        readyz_during_lock: readyzDuringLock,
        acknowledged_again_ms: recoveredMs,
      }),
    );
    // Reads need no write lock: the database answers, and /readyz says so in time.
    expect(readyzDuringLock).not.toBeNull();
    expect(load.late).toEqual([]);
    await expectNothingLost(server, baseUrl, sender, load, tally);
    await tally.close();
  }, 180_000);
});
