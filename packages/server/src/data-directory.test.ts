import { spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BUNDLED_CLI,
  devChildEnv,
  REPO_ROOT,
  type ServerProcess,
  startServer,
  stopChild,
} from "./testing/child-cli.js";

/**
 * Where `tidings serve` keeps its data (a container's /data volume): a directory it may not
 * write stops start-up at once with an error that names it, and the key file it creates there
 * on first start is announced in the log that once.
 */

const dirs: string[] = [];
const running: ServerProcess[] = [];
afterAll(() => {
  for (const server of running) server.child.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "tidings-data-dir-"));
  dirs.push(dir);
  return dir;
};

/** The user the CLI runs as, and whether that user may write to `dir`. */
const NOBODY = 65_534;
const isRoot = process.getuid?.() === 0;

describe("a data directory the server may not write", () => {
  it("stops start-up with exit 1 and an error naming the directory, having written nothing", async () => {
    // Root may write anywhere, so as root the CLI runs as nobody on a directory root owns;
    // otherwise the directory is made read-only to this user.
    const outer = tempDir();
    chmodSync(outer, 0o755);
    const data = join(outer, "data");
    mkdirSync(data, { mode: 0o755 });
    // The CLI's bundle goes somewhere the child may write, so it needs nothing else writable.
    const cache = join(outer, "cli-cache");
    mkdirSync(cache);
    if (isRoot) chownSync(cache, NOBODY, NOBODY);
    else chmodSync(data, 0o555);

    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve, reject) => {
        const child = spawn(process.execPath, [...BUNDLED_CLI, "serve", "--port", "0"], {
          cwd: REPO_ROOT,
          env: {
            ...devChildEnv(data),
            TIDINGS_CLI_CACHE: cache,
            TIDINGS_STARTUP_TIMEOUT_MS: "60000",
          },
          ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
        });
        const stuck = setTimeout(() => child.kill("SIGKILL"), 60_000);
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.once("error", reject);
        child.once("close", (code) => {
          clearTimeout(stuck);
          resolve({ code, stdout, stderr });
        });
      },
    );

    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`TIDINGS_DATABASE_URL points into ${data}, but this process`);
    expect(run.stderr).toContain("may not write to it");
    // Refused at once, not after waiting for the directory as for a read-only disk.
    expect(run.stderr).not.toContain("trying again");
    expect(readdirSync(data)).toEqual([]);
  }, 90_000);
});

describe("the key file beside the database", () => {
  it("is created on the first start, mode 0600, and the log says so that once", async () => {
    const dir = tempDir();
    const env = devChildEnv(dir);
    const keyFile = join(dir, "tidings.db.key");

    const first = await startServer(env);
    running.push(first);
    const created = first.logs.filter((line) => line.msg === "secret key created");
    expect(created).toEqual([expect.objectContaining({ level: "info", file: keyFile })]);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, "utf8");
    // The key itself is never logged.
    expect(JSON.stringify(first.logs)).not.toContain(key.trim());
    expect(await stopChild(first)).toBe(0);

    const second = await startServer(env);
    running.push(second);
    expect(second.logs.some((line) => line.msg === "secret key created")).toBe(false);
    expect(await stopChild(second)).toBe(0);
    expect(readFileSync(keyFile, "utf8")).toBe(key);
  }, 120_000);

  it("is not made when TIDINGS_SECRET_KEY is set", async () => {
    const dir = tempDir();
    const server = await startServer({
      ...devChildEnv(dir),
      TIDINGS_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
    });
    running.push(server);
    expect(server.logs.some((line) => line.msg === "secret key created")).toBe(false);
    expect(await stopChild(server)).toBe(0);
    expect(readdirSync(dir)).not.toContain("tidings.db.key");
  }, 120_000);
});
