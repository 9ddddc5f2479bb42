import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, SOURCE_CLI } from "../../testing/child-cli.js";
import { runCli } from "../../testing/run-cli.js";

/**
 * "Nothing half-imported when interrupted", through the real process on SQLite: an import of
 * ROWS profiles is ended by SIGINT or SIGKILL at a random moment, and the database then holds
 * none of the file's rows or all of them, and passes `PRAGMA integrity_check`.
 */

const ROWS = 30_000;
/** Every other row opts in to SMS, so a complete import also records ROWS / 2 consent changes. */
const CONSENTS = ROWS / 2;

let dir: string;
let file: string;
/** How long a whole import takes here, and when its transaction starts writing. */
let baseline: { totalMs: number; writingAfterMs: number };

let workspaces = 0;
/** A fresh SQLite database with one organization: each run imports into its own. */
async function freshDatabase(): Promise<{
  env: Record<string, string>;
  path: string;
  org: string;
}> {
  const path = join(dir, `run-${++workspaces}.db`);
  const env = { TIDINGS_DATABASE_URL: `sqlite:${path}`, TIDINGS_LOG_LEVEL: "warn" };
  const created = await runCli(["orgs", "create", "--name", "Acme", "--json"], env);
  expect(created.code, created.stderr).toBe(0);
  return { env, path, org: created.json<{ org_id: string }>().org_id };
}

interface ImportProcess {
  /** Resolves when the process has ended, with its exit code or the signal that ended it. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  running(): boolean;
  kill(signal: NodeJS.Signals): void;
  /** Resolves once the import's transaction has written to the WAL, or the process ended. */
  writing(): Promise<void>;
}

function startImport(database: Awaited<ReturnType<typeof freshDatabase>>): ImportProcess {
  const args = ["profiles", "import", "--org", database.org, "--file", file, "--json"];
  // Node itself, not pnpm or the tsx CLI, so the signal reaches the CLI's own process.
  const child = spawn(process.execPath, [...SOURCE_CLI, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...database.env },
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.resume();
  // An import that hangs is killed, so the test fails on what it left instead of waiting on.
  const stuck = setTimeout(() => child.kill("SIGKILL"), 120_000);
  let done = false;
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) =>
      child.once("close", (code, signal) => {
        done = true;
        clearTimeout(stuck);
        resolve({ code, signal, stderr });
      }),
  );
  const wal = `${database.path}-wal`;
  return {
    ended,
    running: () => !done && child.exitCode === null && child.signalCode === null,
    kill: (signal) => child.kill(signal),
    async writing() {
      // The WAL holds just its 32-byte header until the transaction spills pages into it.
      await waitUntil(
        "the import to write to the WAL",
        60_000,
        () => done || (existsSync(wal) && statSync(wal).size > 32),
      );
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the database holds after a run, read by a connection of this process. */
function inspect(path: string): { profiles: number; consents: number; integrity: string } {
  const db = new Database(path);
  try {
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      profiles: count("SELECT count(*) AS n FROM profiles"),
      consents: count("SELECT count(*) AS n FROM consent_changes"),
      integrity: db.pragma("integrity_check", { simple: true }) as string,
    };
  } finally {
    db.close();
  }
}

/**
 * Starts an import, sends `signal` at the moment `when` picks, and checks what is left: all or
 * nothing. An import that finished before the signal reached it must have exit 0 and all rows;
 * then it is tried again (three times at most), so the signal really interrupts one.
 */
async function interrupt(
  signal: NodeJS.Signals,
  when: (run: ImportProcess) => Promise<number>,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  for (let attempt = 1; ; attempt++) {
    const database = await freshDatabase();
    const run = startImport(database);
    const delayMs = await when(run);
    await sleep(delayMs);
    if (run.running()) run.kill(signal);
    const ended = await run.ended;
    const left = inspect(database.path);
    const what = `${signal} ${Math.round(delayMs)} ms after the moment picked (exit ${ended.code}, signal ${ended.signal}): ${JSON.stringify(left)} ${ended.stderr}`;
    expect(left.integrity, what).toBe("ok");
    expect(
      [
        { profiles: 0, consents: 0 },
        { profiles: ROWS, consents: CONSENTS },
      ],
      what,
    ).toContainEqual({ profiles: left.profiles, consents: left.consents });
    const finished = ended.code === 0 && ended.signal === null;
    if (finished) expect(left.profiles, what).toBe(ROWS);
    if (!finished || attempt === 3) {
      expect(finished, `the import outran ${signal} three times`).toBe(false);
      return { code: ended.code, signal: ended.signal };
    }
  }
}

/** Some moment of the whole run, start-up and reading the file included. */
const anywhere = async () => Math.random() * baseline.totalMs * 0.9;
/** Some moment while the transaction writes: waits for its first pages in the WAL. */
const whileWriting = async (run: ImportProcess) => {
  await run.writing();
  return Math.random() * (baseline.totalMs - baseline.writingAfterMs) * 0.7;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-import-interrupted-"));
  file = join(dir, "profiles.csv");
  const lines = ["phone_number,first_name,last_name,sms_marketing_consent"];
  for (let i = 0; i < ROWS; i++) {
    lines.push(`+1415${2_000_000 + i},First${i},Last${i},${i % 2 === 1}`);
  }
  writeFileSync(file, `${lines.join("\n")}\n`);

  // One whole import, timed, so the interruptions below land inside a run.
  const database = await freshDatabase();
  const started = performance.now();
  const run = startImport(database);
  await run.writing();
  const writingAfterMs = performance.now() - started;
  const ended = await run.ended;
  expect(ended.code, ended.stderr).toBe(0);
  baseline = { totalMs: performance.now() - started, writingAfterMs };
  expect(inspect(database.path)).toEqual({ profiles: ROWS, consents: CONSENTS, integrity: "ok" });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("an interrupted profiles import (SQLite, the CLI's own process)", () => {
  it("leaves nothing or everything after SIGINT, exiting non-zero", async () => {
    for (const when of [anywhere, whileWriting]) {
      const ended = await interrupt("SIGINT", when);
      // Ended by the signal itself (a shell shows 130), or by a handler with its own code.
      expect(ended.signal === "SIGINT" || (ended.code !== null && ended.code !== 0)).toBe(true);
    }
  }, 120_000);

  it("leaves nothing or everything after SIGKILL, with the database intact", async () => {
    for (const when of [anywhere, whileWriting]) {
      expect(await interrupt("SIGKILL", when)).toEqual({ code: null, signal: "SIGKILL" });
    }
  }, 120_000);
});
