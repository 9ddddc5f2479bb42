import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { within } from "@tidings/core/testing";

/** The repository root: the CLI runs there, as `pnpm tidings` does. */
export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** Node's arguments before the CLI's own: which `tidings` a child process runs. */
export type CliEntry = readonly string[];
/**
 * The CLI as `pnpm tidings` runs it: the sources bundled once by scripts/tidings.mjs, and in
 * this process (no child), so a signal sent to it reaches the CLI. It starts in a fraction of
 * the time tsx takes, which tests that start many processes feel.
 */
export const BUNDLED_CLI: CliEntry = ["scripts/tidings.mjs"];

/** How long a child CLI may take to finish a command or to come up before a test gives up. */
const CHILD_PATIENCE_MS = 60_000;

/**
 * Runs one CLI command as a child process and collects its output and exit code; a command
 * still running after a minute is killed, so it ends with a signal (code null) and its output.
 */
export function runChildCli(
  args: string[],
  env: Record<string, string>,
  entry: CliEntry = BUNDLED_CLI,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], { cwd: REPO_ROOT, env });
    const stuck = setTimeout(() => child.kill("SIGKILL"), CHILD_PATIENCE_MS);
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
  });
}

/** Runs one CLI command with `--json` and answers its output parsed; throws, with its stderr, when it fails. */
export async function runChildCliJson<T>(
  args: string[],
  env: Record<string, string>,
  entry: CliEntry = BUNDLED_CLI,
): Promise<T> {
  const run = await runChildCli([...args, "--json"], env, entry);
  if (run.code !== 0) {
    throw new Error(`tidings ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  }
  return JSON.parse(run.stdout) as T;
}

/**
 * The environment of a child `tidings` on a SQLite database in `dir`: this process's own, in
 * development mode (so loopback receivers are allowed), logging at info, sandbox sends
 * delivered after 50 ms.
 */
export const devChildEnv = (dir: string): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  TIDINGS_DATABASE_URL: `sqlite:${join(dir, "tidings.db")}`,
  TIDINGS_DEV: "1",
  TIDINGS_SANDBOX_DELAY_MS: "50",
  TIDINGS_LOG_LEVEL: "info",
});

/** A running `tidings` child process, with its JSON log lines so far. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  logs: Array<Record<string, unknown>>;
  /** Resolves with the exit code (or null after a signal) once the process has ended. */
  exited: Promise<number | null>;
}

/**
 * Starts a long-running CLI command and resolves, with the log line that said so, once
 * `isReady` accepts one of its stdout lines; rejects if it exits first, or kills it and rejects
 * if it is not ready within a minute. A line that is not JSON
 * is kept as `{ not_json }`, so a test can assert that stdout held nothing else.
 */
export function startCliProcess(
  args: string[],
  env: Record<string, string>,
  isReady: (entry: Record<string, unknown>) => boolean,
  entry: CliEntry = BUNDLED_CLI,
): Promise<CliProcess & { ready: Record<string, unknown> }> {
  const child = spawn(process.execPath, [...entry, ...args], { cwd: REPO_ROOT, env });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  return new Promise((resolve, reject) => {
    const stuck = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`tidings ${args[0]} was not up after ${CHILD_PATIENCE_MS} ms: ${stderr}`));
    }, CHILD_PATIENCE_MS);
    void exited.finally(() => clearTimeout(stuck));
    createInterface({ input: child.stdout }).on("line", (line) => {
      let logged: Record<string, unknown>;
      try {
        logged = JSON.parse(line) as Record<string, unknown>;
      } catch {
        logged = { not_json: line };
      }
      logs.push(logged);
      if (isReady(logged)) {
        clearTimeout(stuck);
        resolve({ child, logs, exited, ready: logged });
      }
    });
    void exited.then((code) =>
      reject(new Error(`tidings ${args[0]} exited with ${code} before it was up: ${stderr}`)),
    );
  });
}

/** Sends SIGTERM and answers the exit code once the process has drained and exited. */
export function stopChild(running: CliProcess): Promise<number | null> {
  running.child.kill("SIGTERM");
  return within(CHILD_PATIENCE_MS, "the process to drain and exit", running.exited);
}

/** A running `tidings serve`: its port, its log lines so far, and how it ended. */
export interface ServerProcess extends CliProcess {
  port: number;
}

/** Starts `tidings serve --port 0` and resolves once its `listening` log line names the port. */
export async function startServer(
  env: Record<string, string>,
  entry: CliEntry = BUNDLED_CLI,
): Promise<ServerProcess> {
  const started = await startCliProcess(
    ["serve", "--port", "0"],
    env,
    (logged) => logged.msg === "listening",
    entry,
  );
  return { ...started, port: Number(started.ready.port) };
}
