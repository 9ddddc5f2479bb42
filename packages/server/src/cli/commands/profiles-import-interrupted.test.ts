import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLED_CLI, REPO_ROOT } from "../../testing/child-cli.js";
import { cliOrganization } from "../../testing/run-cli.js";

/**
 * "Nothing half-imported when interrupted", through the real process on SQLite: an import of
 * ROWS profiles is ended by SIGINT or SIGKILL at a moment the test sees happen in the
 * database's files (never after a measured delay, which a loaded machine would stretch), and
 * the database then holds none of the file's rows or all of them, and passes
 * `PRAGMA integrity_check`.
 */

const ROWS = 30_000;
/** Every other row opts in to SMS, so a complete import also records ROWS / 2 consent changes. */
const CONSENTS = ROWS / 2;

let dir: string;
let file: string;

let workspaces = 0;
/** A fresh SQLite database with one organization: each run imports into its own. */
async function freshDatabase(): Promise<{
  env: Record<string, string>;
  path: string;
  org: string;
}> {
  const path = join(dir, `run-${++workspaces}.db`);
  const env = { TIDINGS_DATABASE_URL: `sqlite:${path}`, TIDINGS_LOG_LEVEL: "warn" };
  // In this process: once it closed the database, its -wal and -shm files are gone again.
  return { env, path, org: await cliOrganization(env) };
}

interface ImportProcess {
  /** Resolves when the process has ended, with its exit code or the signal that ended it. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  running(): boolean;
  kill(signal: NodeJS.Signals): void;
  /** Resolves once `moment` has come, or the process ended first. */
  reached(moment: Moment): Promise<void>;
}

/** The size of a file, or -1 while it does not exist. */
const sizeOf = (path: string): number => (existsSync(path) ? statSync(path).size : -1);

/**
 * The moments an import is interrupted at, each seen in the database's files: the process
 * opened the database (its `-shm` file appears) and reads and checks the file, which takes
 * most of a run; its one transaction has started writing (the WAL grows past its 32-byte
 * header); it is halfway through writing (ROWS profiles fill the WAL with about 1.7 MiB of
 * pages before the commit, so 1 MiB is well inside the transaction).
 */
const MOMENTS = {
  reading: (db: string) => sizeOf(`${db}-shm`) >= 0,
  writing: (db: string) => sizeOf(`${db}-wal`) > 32,
  midway: (db: string) => sizeOf(`${db}-wal`) >= 1024 * 1024,
} as const;
type Moment = keyof typeof MOMENTS;

function startImport(database: Awaited<ReturnType<typeof freshDatabase>>): ImportProcess {
  const args = ["profiles", "import", "--org", database.org, "--file", file, "--json"];
  // Node itself, not pnpm, so the signal reaches the CLI's own process.
  const child = spawn(process.execPath, [...BUNDLED_CLI, ...args], {
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
  return {
    ended,
    running: () => !done && child.exitCode === null && child.signalCode === null,
    kill: (signal) => child.kill(signal),
    reached: (moment) =>
      waitUntil(`the import to be ${moment}`, 60_000, () => done || MOMENTS[moment](database.path)),
  };
}

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
 * Starts an import, sends `signal` as soon as `moment` comes, and checks what is left: all or
 * nothing. An import that finished before the signal reached it must have exit 0 and all rows;
 * then it is tried again (three times at most), so the signal really interrupts one.
 */
async function interrupt(
  signal: NodeJS.Signals,
  moment: Moment,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  for (let attempt = 1; ; attempt++) {
    const database = await freshDatabase();
    const run = startImport(database);
    await run.reached(moment);
    if (run.running()) run.kill(signal);
    const ended = await run.ended;
    const left = inspect(database.path);
    const what = `${signal} when ${moment} (exit ${ended.code}, signal ${ended.signal}): ${JSON.stringify(left)} ${ended.stderr}`;
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
      return ended;
    }
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-import-interrupted-"));
  file = join(dir, "profiles.csv");
  const lines = ["phone_number,first_name,last_name,sms_marketing_consent"];
  for (let i = 0; i < ROWS; i++) {
    lines.push(`+1415${2_000_000 + i},First${i},Last${i},${i % 2 === 1}`);
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("an interrupted profiles import (SQLite, the CLI's own process)", () => {
  it("leaves nothing or everything after SIGINT, exiting non-zero", async () => {
    for (const moment of ["reading", "midway"] as const) {
      const ended = await interrupt("SIGINT", moment);
      // Ended by the signal itself (a shell shows 130), or by a handler with its own code.
      const interrupted = ended.signal === "SIGINT" || (ended.code !== null && ended.code !== 0);
      expect(interrupted, ended.stderr).toBe(true);
    }
  }, 120_000);

  it("leaves nothing or everything after SIGKILL, with the database intact", async () => {
    for (const moment of ["reading", "writing", "midway"] as const) {
      const { code, signal, stderr } = await interrupt("SIGKILL", moment);
      expect({ code, signal }, stderr).toEqual({ code: null, signal: "SIGKILL" });
    }
  }, 120_000);
});
