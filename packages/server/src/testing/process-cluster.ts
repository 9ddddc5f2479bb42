import { randomBytes } from "node:crypto";
import pg from "pg";
import { type CliProcess, startCliProcess } from "./child-cli.js";
import { runCli } from "./run-cli.js";

/** A running `tidings serve` or `tidings worker` child process. */
export interface TidingsProcess extends CliProcess {
  /** The delivery engine's lease owner, as its start-up log line names it. */
  engine: string;
  /** `http://127.0.0.1:PORT` for `serve`; empty for `worker`. */
  baseUrl: string;
}

const READY = { serve: "listening", worker: "worker started" } as const;

/** Starts `tidings serve --port 0` or `tidings worker` and resolves once it logs that it is up. */
async function startTidingsProcess(
  command: "serve" | "worker",
  env: Record<string, string>,
): Promise<TidingsProcess> {
  const args = command === "serve" ? ["serve", "--port", "0"] : ["worker"];
  const { ready, ...started } = await startCliProcess(
    args,
    env,
    (logged) => logged.msg === READY[command],
  );
  const baseUrl = command === "serve" ? `http://127.0.0.1:${Number(ready.port)}` : "";
  return { ...started, engine: String(ready.engine), baseUrl };
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

/** What a test send may set besides the sender: by default pin 1234 to +14155550101. */
export interface OtpSend {
  phone?: string | undefined;
  pin?: string | undefined;
  webhookUrl?: string | undefined;
  clientReference?: string | undefined;
}

/** POSTs a send of the sender's OTP campaign to the API at `baseUrl`, with its token. */
export function sendOtp(
  baseUrl: string,
  sender: Pick<Sender, "token" | "campaignId">,
  send: OtpSend = {},
): Promise<Response> {
  return fetch(`${baseUrl}/v1/messages/send`, {
    method: "POST",
    headers: { authorization: `Bearer ${sender.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      campaign_id: sender.campaignId,
      recipient: { type: "phone_number", value: send.phone ?? "+14155550101" },
      params: { pin: send.pin ?? "1234" },
      ...(send.webhookUrl === undefined ? {} : { webhook_url: send.webhookUrl }),
      ...(send.clientReference === undefined ? {} : { client_reference: send.clientReference }),
    }),
  });
}
