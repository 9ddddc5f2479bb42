import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { skippedUnless } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import {
  type CliProcess,
  runChildCli,
  type ServerProcess,
  startCliProcess,
  startServer,
  stopChild,
} from "./testing/child-cli.js";
import { eventually } from "./testing/eventually.js";
import {
  createFaultSender,
  expectNothingLost,
  faultServerEnv,
  startFaultLoad,
  subscribeEveryTopic,
} from "./testing/fault-load.js";

/**
 * SQLite's disk filling up, and its file system read-only, under `tidings serve`: each test
 * runs on a small tmpfs of its own, which needs root to mount; elsewhere they are skipped.
 */

/** Whether this process may mount a tmpfs (root, and a kernel that lets it). */
function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), "tidings-mount-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const MOUNTABLE = canMountTmpfs();

/** A fresh tmpfs of `sizeMb` MiB, mounted on a directory of its own. */
function mountTmpfs(sizeMb: number): string {
  const dir = mkdtempSync(join(tmpdir(), "tidings-faults-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", dir]);
  return dir;
}

const remount = (dir: string, mode: "ro" | "rw") =>
  execFileSync("mount", ["-o", `remount,${mode}`, dir]);

function unmount(dir: string): void {
  try {
    execFileSync("umount", ["-l", dir], { stdio: "ignore" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes to `path` until the file system is full (bounded by `maxMb`); answers the bytes written. */
function fillDisk(path: string, maxMb: number): number {
  const chunk = Buffer.alloc(256 * 1024, 1);
  const fd = openSync(path, "w");
  let written = 0;
  try {
    for (let i = 0; i < maxMb * 4; i += 1) written += writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return written;
}

const serverEnv = (dir: string) => faultServerEnv(`sqlite:${join(dir, "tidings.db")}`);

// Skipped where this process cannot mount a tmpfs (it needs root): the disk is filled and
// turned read-only on a small file system of the test's own, never the machine's.
describe.skipIf(
  skippedUnless(MOUNTABLE, "a full or read-only disk needs root to mount a small tmpfs"),
)("SQLite on a disk that fills up or turns read-only", () => {
  const mounted: string[] = [];
  const running: CliProcess[] = [];

  afterAll(() => {
    for (const proc of running) proc.child.kill("SIGKILL");
    for (const dir of mounted) unmount(dir);
  });

  it("answers 503 while the disk is full, then recovers once space is freed, losing nothing", async () => {
    const dir = mountTmpfs(48);
    mounted.push(dir);
    const env = serverEnv(dir);
    const sender = await createFaultSender(env);
    const server: ServerProcess = await startServer(env);
    running.push(server);
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const tally = await subscribeEveryTopic(baseUrl, sender);
    const load = startFaultLoad(() => baseUrl, sender);
    const filler = join(dir, "filler");
    try {
      await load.acknowledgedMore(10, "sends before the disk fills");
      expect(fillDisk(filler, 64)).toBeGreaterThan(0);
      await eventually(
        "a send refused with 503 on the full disk",
        async () => ((load.statuses.get(503) ?? 0) > 0 ? true : undefined),
        30_000,
      );
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(503);
      await sleep(1000);
      rmSync(filler);
      await eventually(
        "/readyz to say ready once space is free",
        async () => ((await fetch(`${baseUrl}/readyz`)).status === 200 ? true : undefined),
        10_000,
      );
      await load.acknowledgedMore(10, "sends once space is free", 30_000);
    } finally {
      await load.stop();
    }
    await expectNothingLost(server, baseUrl, sender, load, tally);
    expect(server.logs.some((line) => line.msg === "storage available again")).toBe(true);
    await tally.close();
    expect(await stopChild(server)).toBe(0);
    const db = new Database(join(dir, "tidings.db"), { readonly: true });
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
  }, 180_000);

  it("waits at start-up while its file system is read-only, then serves once it is writable", async () => {
    const dir = mountTmpfs(16);
    mounted.push(dir);
    const env = serverEnv(dir);
    const sender = await createFaultSender(env);
    // Linux refuses to make a file system read-only while a process has a file open on it
    // for writing, as a running server does; so the server starts on one already read-only.
    remount(dir, "ro");
    const proc = await startCliProcess(
      ["serve", "--port", "0"],
      { ...env, TIDINGS_STARTUP_TIMEOUT_MS: "60000" },
      (line) => line.msg === "storage unavailable at start-up; trying again",
    );
    running.push(proc);
    expect(proc.ready.reason).toBe("read_only");
    remount(dir, "rw");
    const listening = await eventually("the server to listen once writable", async () =>
      proc.logs.find((line) => line.msg === "listening"),
    );
    const baseUrl = `http://127.0.0.1:${Number(listening.port)}`;
    const tally = await subscribeEveryTopic(baseUrl, sender);
    const load = startFaultLoad(() => baseUrl, sender);
    try {
      await load.acknowledgedMore(10, "sends on the writable file system");
    } finally {
      await load.stop();
    }
    await expectNothingLost(proc, baseUrl, sender, load, tally);
    await tally.close();
  }, 120_000);

  it("stops with exit 1 and an error naming the directory when it stays read-only", async () => {
    // A database and its key already there, as on a volume mounted read-only by mistake.
    const kept = mountTmpfs(16);
    mounted.push(kept);
    await createFaultSender(serverEnv(kept));
    remount(kept, "ro");
    const waited = await runChildCli(["serve", "--port", "0"], {
      ...serverEnv(kept),
      TIDINGS_STARTUP_TIMEOUT_MS: "500",
    });
    expect(waited.code).toBe(1);
    const failed = JSON.parse(waited.stdout.trim().split("\n").at(-1) ?? "") as {
      msg: string;
      error: string;
    };
    expect(failed.msg).toBe("failed");
    expect(failed.error).toContain(
      `The directory ${kept} is on a read-only file system: mount a writable volume there.`,
    );

    // Nothing there yet: the key file cannot be made, which no wait would change.
    const empty = mountTmpfs(1);
    mounted.push(empty);
    remount(empty, "ro");
    const refused = await runChildCli(["serve", "--port", "0"], serverEnv(empty));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `the key file ${join(empty, "tidings.db.key")} cannot be created (read-only file system): mount a writable volume at ${empty}, or set TIDINGS_SECRET_KEY.`,
    );
  }, 120_000);
});
