import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import pg from "pg";
import { REPO_ROOT } from "../testing/child-cli.js";
import { runCli } from "../testing/run-cli.js";

/** A running `tidings serve` or `tidings worker` child process. */
export interface TidingsProcess {
  child: ChildProcessWithoutNullStreams;
  /** The delivery engine's lease owner, as its start-up log line names it. */
  engine: string;
  /** `http://127.0.0.1:PORT` for `serve`; empty for `worker`. */
  baseUrl: string;
  /** Every JSON log line so far. */
  logs: Array<Record<string, unknown>>;
  /** Resolves with the exit code (or null after a signal) once the process has ended. */
  exited: Promise<number | null>;
}

const READY = { serve: "listening", worker: "worker started" } as const;

/** Starts `tidings serve --port 0` or `tidings worker` and resolves once it logs that it is up. */
export function startTidingsProcess(
  command: "serve" | "worker",
  env: Record<string, string>,
): Promise<TidingsProcess> {
  const args = command === "serve" ? ["serve", "--port", "0"] : ["worker"];
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "packages/server/src/bin.ts", ...args],
    {
      cwd: REPO_ROOT,
      env,
    },
  );
  const logs: Array<Record<string, unknown>> = [];
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        entry = { not_json: line };
      }
      logs.push(entry);
      if (entry.msg !== READY[command]) return;
      const baseUrl = command === "serve" ? `http://127.0.0.1:${Number(entry.port)}` : "";
      resolve({ child, engine: String(entry.engine), baseUrl, logs, exited });
    });
    void exited.then((code) =>
      reject(new Error(`${command} exited with ${code} before it was up: ${stderr}`)),
    );
  });
}

/** Several processes on one PostgreSQL schema, with a raw connection to read what they stored. */
export interface ProcessCluster {
  schema: string;
  /** The environment every process (and the in-process CLI) runs with. */
  env: Record<string, string>;
  servers: TidingsProcess[];
  workers: TidingsProcess[];
  /** Runs SQL on the test database; name tables as `${cluster.schema}.deliveries`. */
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
  /** Stops every process still running (SIGTERM, then SIGKILL) and drops the schema. */
  stop(): Promise<void>;
}

/** Waits for a process to end, killing it if SIGTERM has not ended it in time. */
async function stopProcess(proc: TidingsProcess): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill("SIGTERM");
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 15_000);
  await proc.exited;
  clearTimeout(timer);
}

/**
 * Starts `servers` × `tidings serve` and `workers` × `tidings worker` together on a fresh schema
 * (`?schema=mp_<random>`) of the database at `pgUrl`, sharing one TIDINGS_SECRET_KEY. They start
 * at once, so they also race to migrate it (the adapter's advisory lock makes that safe).
 */
export async function startProcessCluster(options: {
  pgUrl: string;
  servers: number;
  workers: number;
  env: Record<string, string>;
}): Promise<ProcessCluster> {
  const schema = `mp_${randomBytes(6).toString("hex")}`;
  const separator = options.pgUrl.includes("?") ? "&" : "?";
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TIDINGS_DATABASE_URL: `${options.pgUrl}${separator}schema=${schema}`,
    TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
    TIDINGS_DEV: "1",
    TIDINGS_LOG_LEVEL: "info",
    ...options.env,
  };
  const pool = new pg.Pool({ connectionString: options.pgUrl, max: 2 });
  pool.on("error", () => undefined);
  const started = await Promise.allSettled([
    ...Array.from({ length: options.servers }, () => startTidingsProcess("serve", env)),
    ...Array.from({ length: options.workers }, () => startTidingsProcess("worker", env)),
  ]);
  const running = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(running.map(stopProcess));
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  };
  const failed = started.find((s) => s.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return {
    schema,
    env,
    servers: running.slice(0, options.servers),
    workers: running.slice(options.servers),
    async query<T>(text: string, values: unknown[] = []) {
      return (await pool.query(text, values)).rows as T[];
    },
    stop,
  };
}

/** An organization's API key and active OTP campaign, made with the `tidings` CLI. */
export interface Sender {
  token: string;
  webhookSigningSecret: string;
  campaignId: string;
}

/** Creates an organization, a key with `scopes` and an active SMS OTP campaign through the CLI. */
export async function createSender(env: Record<string, string>, scopes: string): Promise<Sender> {
  const cli = async <T>(...args: string[]): Promise<T> => {
    const run = await runCli([...args, "--json"], env);
    if (run.code !== 0) throw new Error(`tidings ${args.join(" ")}: ${run.stderr}`);
    return run.json<T>();
  };
  const { org_id } = await cli<{ org_id: string }>("orgs", "create", "--name", "Cluster");
  const key = await cli<{ token: string; webhook_signing_secret: string }>(
    ..."keys create --org".split(" "),
    org_id,
    "--scopes",
    scopes,
  );
  const campaign = await cli<{ campaign_id: string }>(
    ..."campaigns create --org".split(" "),
    org_id,
    ..."--name Login --channel sms --category otp --sender Acme --active".split(" "),
    "--template",
    "Your code is {{pin}}",
  );
  return {
    token: key.token,
    webhookSigningSecret: key.webhook_signing_secret,
    campaignId: campaign.campaign_id,
  };
}
