import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { request } from "undici";

/**
 * The built `tidings` command (`pnpm run build-packages` makes it). Named by path rather than
 * through a dependency on @tidings/server, whose bin pnpm would try to link before any build.
 */
export const TIDINGS_BIN = fileURLToPath(
  new URL("../../../packages/server/dist/bin.js", import.meta.url),
);

export type Env = Record<string, string>;

/** Runs one `tidings … --json` command and resolves with its JSON answer. */
export function tidingsCli<T>(args: string[], env: Env, bin = TIDINGS_BIN): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [bin, ...args, "--json"],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`tidings ${args.join(" ")} failed: ${stderr || stdout}`));
        else resolve(JSON.parse(stdout) as T);
      },
    );
  });
}

/** A running `tidings serve` child process. */
export interface TidingsServer {
  url: string;
  pid: number;
  /**
   * The peak resident set size (VmHWM) since the start, or since the last `takePeakRssMiB`
   * that could set it back, in MiB; `null` off Linux.
   */
  peakRssMiB(): number | null;
  /**
   * The peak as `peakRssMiB` reads it, then sets the mark back to the RSS of the moment, so
   * each phase of a run has its own high-water mark. `sinceStart` is true when the mark could
   * not be set back before (the first call, or a kernel that refuses): the peak then covers
   * every phase before too.
   */
  takePeakRssMiB(): { mib: number | null; sinceStart: boolean };
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** Peak RSS of a process from /proc/PID/status, in MiB. */
export function peakRssMiB(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/**
 * Sets a process's peak RSS back to its current RSS (writing 5 to /proc/PID/clear_refs, Linux
 * 4.0 and later); false where that is refused or unknown.
 */
function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

const exited = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });

/** A port that was free a moment ago (the server logs its port only at `info`). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Polls `/healthz` until the server answers. */
async function waitUntilUp(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) {
      throw new Error(`tidings serve exited (${child.exitCode}) before listening: ${stderr()}`);
    }
    try {
      const answer = await request(`${url}/healthz`);
      await answer.body.dump();
      if (answer.statusCode === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`tidings serve did not answer /healthz: ${stderr()}`);
}

/**
 * What makes `tidings serve` time its SQLite statements into `file` (see sql-timing-hook.mjs):
 * the hook, and where it finds the server's better-sqlite3.
 */
export function sqlTiming(file: string): { nodeArgs: string[]; env: Env } {
  const hook = fileURLToPath(new URL("./sql-timing-hook.mjs", import.meta.url));
  return {
    nodeArgs: ["--import", pathToFileURL(hook).href],
    env: { BENCH_SQL_TIMING_FILE: file, BENCH_SQL_TIMING_FROM: TIDINGS_BIN },
  };
}

/**
 * Starts `tidings serve` on a free loopback port (optionally under extra node flags such as
 * `--cpu-prof`, and from another build's `bin`) and resolves once it answers `/healthz`. Its
 * warnings and errors are echoed, the first few only.
 */
export async function startTidings(
  env: Env,
  nodeArgs: string[] = [],
  bin = TIDINGS_BIN,
): Promise<TidingsServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, bin, "serve", "--port", String(port)], {
    env: { ...process.env, TIDINGS_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let echoed = 0;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (echoed++ < 10) process.stderr.write(`[serve] ${line.slice(0, 300)}\n`);
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(url, child, () => stderr);
  const pid = child.pid!;
  // Whether the last `takePeakRssMiB` set the mark back.
  let setBack = false;
  return {
    url,
    pid,
    peakRssMiB: () => peakRssMiB(pid),
    takePeakRssMiB: () => {
      const peak = { mib: peakRssMiB(pid), sinceStart: !setBack };
      setBack = resetPeakRss(pid);
      return peak;
    },
    async stop() {
      child.kill("SIGTERM");
      await exited(child);
    },
  };
}

/** A running `tidings worker` child process. */
export interface TidingsWorker {
  pid: number;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `tidings worker` and resolves once it logs that it started. */
export async function startTidingsWorker(env: Env): Promise<TidingsWorker> {
  const child = spawn(process.execPath, [TIDINGS_BIN, "worker"], {
    env: { ...process.env, ...env, TIDINGS_LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      if (line.includes('"worker started"')) resolve();
    });
    child.once("exit", (code) =>
      reject(new Error(`tidings worker exited (${code}) before starting: ${stderr}`)),
    );
  });
  return {
    pid: child.pid!,
    async stop() {
      child.kill("SIGTERM");
      await exited(child);
    },
  };
}
