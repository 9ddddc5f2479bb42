// The soak benchmark: `tidings serve` on SQLite and on PostgreSQL under a steady mix of
// profile creates and reads, sends with and without idempotency keys, and webhook deliveries
// to a receiver that answers and one that fails, with a two-minute retention, sampled every
// minute. Writes the `soak` section of RESULTS.md.
//
//   pnpm --filter @tidings/bench soak [--minutes 10] [--database sqlite|postgres|both] [--rate 20]
//     [--autovacuum]
//
// `--autovacuum` turns PostgreSQL's autovacuum on for the run when the server has it off (as
// test clusters often do: the space retention frees is then never reused), with ALTER SYSTEM and
// a reload, and resets it afterwards; production servers run with it on.
//
// With `both` (the default) the two servers run at once, side by side.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Sqlite from "better-sqlite3";
import pg from "pg";
import { Agent, request } from "undici";
import { createFixture, type Database, type Fixture, PG_URL } from "./harness/fixture.js";
import { describeMachine, machineLine } from "./harness/machine.js";
import { fixed, int, table, verdict } from "./harness/markdown.js";
import { phoneNumber } from "./harness/phones.js";
import { writeSection } from "./harness/results.js";
import { TIDINGS_BIN } from "./harness/tidings-process.js";

const PROBE = fileURLToPath(new URL("./harness/loop-delay-probe.mjs", import.meta.url));
const MINUTE = 60_000;
/** The retention the soak runs with, and when the figures should have levelled off. */
const RETENTION = "2m";
const RETRY_WINDOW_MS = 60_000;
/** First minute counted as steady: retention, plus the failing receiver's retry window, plus one. */
const STEADY_FROM = 4;
const MAX_IN_FLIGHT = 64;

const { values: args } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    database: { type: "string", default: "both" },
    rate: { type: "string", default: "20" },
    autovacuum: { type: "boolean", default: false },
  },
});
const MINUTES = Math.max(1, Math.min(60, Number(args.minutes)));
const RATE = Math.max(1, Math.min(500, Number(args.rate)));

/** One minute's figures. */
interface Sample {
  minute: number;
  rssMiB: number;
  fds: number;
  loopP99Ms: number | null;
  dbMiB: number;
  rows: Record<string, number>;
  requests: number;
  p99Ms: number | null;
  errors: number;
  load: number;
}

interface SoakResult {
  database: Database;
  samples: Sample[];
  requests: number;
  errorAnswers: number;
  errorSamples: string[];
  skipped: number;
  logLevels: Record<string, number>;
  warnings: Map<string, number>;
  errorLines: string[];
  exitCode: number | null;
}

const TABLES = [
  "messages",
  "message_events",
  "deliveries",
  "delivery_attempts",
  "idempotency_records",
  "rate_limit_hits",
  "profiles",
];

/** A receiver on 127.0.0.1 answering every POST with `status`. */
async function receiver(
  status: number,
): Promise<{ url: string; server: Server; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hits += 1;
      res.writeHead(status).end(status === 200 ? "ok" : "unavailable");
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, server, hits: () => hits };
}

const p99 = (values: number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? null;
};

/** Resident set size and open file descriptors of a process, from /proc. */
function processFigures(pid: number): { rssMiB: number; fds: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return { rssMiB: kb / 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
}

/** Reads the database's size and rows per table. */
async function databaseReader(fixture: Fixture) {
  if (fixture.sqlitePath !== null) {
    const path = fixture.sqlitePath;
    const db = new Sqlite(path, { readonly: true, fileMustExist: true });
    const size = (file: string) => {
      try {
        return statSync(file).size;
      } catch {
        return 0;
      }
    };
    return {
      async read() {
        const rows: Record<string, number> = {};
        for (const name of TABLES) {
          rows[name] = (db.prepare(`SELECT COUNT(*) AS n FROM ${name}`).get() as { n: number }).n;
        }
        return { bytes: size(path) + size(`${path}-wal`), rows };
      },
      async close() {
        db.close();
      },
    };
  }
  const schema = fixture.pgSchema ?? "public";
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  return {
    async read() {
      const rows: Record<string, number> = {};
      for (const name of TABLES) {
        const result = await client.query(`SELECT COUNT(*) AS n FROM "${schema}"."${name}"`);
        rows[name] = Number(result.rows[0].n);
      }
      const size = await client.query(
        `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
        [schema],
      );
      return { bytes: Number(size.rows[0].bytes), rows };
    },
    async close() {
      await client.end();
    },
  };
}

/** Starts `tidings serve` with the event-loop probe preloaded, on a port it picks itself. */
async function serve(env: Record<string, string>) {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", PROBE, TIDINGS_BIN, "serve", "--port", "0"],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const levels: Record<string, number> = {};
  const warnings = new Map<string, number>();
  const errorLines: string[] = [];
  const loopP99s: number[] = [];
  let port = 0;
  let buffered = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const text of lines) {
      if (text === "") continue;
      let line: { level?: string; msg?: string; port?: number; url?: string; error?: unknown };
      try {
        line = JSON.parse(text);
      } catch {
        errorLines.push(`not JSON: ${text.slice(0, 200)}`);
        continue;
      }
      const level = line.level ?? "none";
      levels[level] = (levels[level] ?? 0) + 1;
      if (line.msg === "listening" && typeof line.port === "number") port = line.port;
      if (level === "warn") {
        // Attempts are grouped by receiver; their text differs only in ids and timings.
        const key =
          line.msg === "webhook attempt"
            ? `webhook attempt to ${String(line.url)}`
            : String(line.msg);
        warnings.set(key, (warnings.get(key) ?? 0) + 1);
      }
      if (level === "error") errorLines.push(text.slice(0, 400));
    }
  });
  let stderrRest = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderrRest += chunk.toString();
    const lines = stderrRest.split("\n");
    stderrRest = lines.pop() ?? "";
    for (const text of lines) {
      if (text.startsWith('{"probe":"loop_delay"')) {
        loopP99s.push((JSON.parse(text) as { p99_ms: number }).p99_ms);
      } else if (text.trim() !== "") {
        errorLines.push(`stderr: ${text.slice(0, 300)}`);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  for (let i = 0; i < 600 && port === 0; i++) {
    if (child.exitCode !== null) throw new Error(`serve exited early: ${errorLines.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (port === 0) throw new Error("serve did not log its port");
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    levels,
    warnings,
    errorLines,
    /** The event-loop p99s reported since the last call, and forgets them. */
    takeLoopP99s: () => loopP99s.splice(0),
    async stop(): Promise<number | null> {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** One kind of request in the mix, with the status that counts as right. */
type Operation = () => {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  key?: string;
  expect: number;
  /** Called with the answer's body when it had the expected status. */
  done?: (text: string) => void;
};

async function soak(database: Database): Promise<SoakResult> {
  const fixture = await createFixture(database);
  const ok = await receiver(200);
  const failing = await receiver(503);
  const server = await serve({
    ...fixture.env,
    TIDINGS_DEV: "1",
    TIDINGS_LOG_LEVEL: "info",
    TIDINGS_RETENTION: RETENTION,
    TIDINGS_IDEMPOTENCY_TTL: RETENTION,
    TIDINGS_SANDBOX_DELAY_MS: "1000",
    TIDINGS_WEBHOOK_BACKOFF_BASE_MS: "5000",
    TIDINGS_WEBHOOK_BACKOFF_CAP_MS: "20000",
    TIDINGS_WEBHOOK_RETRY_WINDOW_MS: String(RETRY_WINDOW_MS),
    TIDINGS_PROBE_INTERVAL_MS: "10000",
  });
  const reader = await databaseReader(fixture);
  const agent = new Agent({ connections: MAX_IN_FLIGHT });
  const created: string[] = [];
  const recentKeys: Array<{ key: string; body: unknown }> = [];
  let profiles = 0;
  let sends = 0;
  let keys = 0;

  const sendBody = (webhook: "ok" | "failing" | "none") => {
    sends += 1;
    return {
      campaign_id: fixture.campaignId,
      // A bounded pool of recipients: the automatic profiles of OTP sends stop growing.
      recipient: { type: "phone_number", value: phoneNumber(1_000_000 + (sends % 200)) },
      params: { brand: "Acme", pin: String(100_000 + (sends % 900_000)) },
      ...(webhook === "none" ? {} : { webhook_url: webhook === "ok" ? ok.url : failing.url }),
    };
  };
  const send =
    (webhook: "ok" | "failing" | "none", idempotency: "none" | "new" | "repeat"): Operation =>
    () => {
      if (idempotency === "repeat" && recentKeys.length > 0) {
        const again = recentKeys[sends % recentKeys.length]!;
        return {
          method: "POST",
          path: "/v1/messages/send",
          body: again.body,
          key: again.key,
          expect: 200,
        };
      }
      const body = sendBody(webhook);
      if (idempotency === "none")
        return { method: "POST", path: "/v1/messages/send", body, expect: 200 };
      keys += 1;
      const key = `soak-${database}-${keys}`;
      // Only a finished request is replayed: one still running would answer 409.
      const done = () => {
        recentKeys.push({ key, body });
        if (recentKeys.length > 50) recentKeys.shift();
      };
      return { method: "POST", path: "/v1/messages/send", body, key, expect: 200, done };
    };
  const createProfile: Operation = () => {
    profiles += 1;
    return {
      method: "POST",
      path: "/v1/profiles",
      body: { phone_number: phoneNumber(2_000_000 + profiles), first_name: "Soak" },
      expect: 201,
      done: (text) => {
        created.push((JSON.parse(text) as { public_id: string }).public_id);
        if (created.length > 500) created.shift();
      },
    };
  };
  const readProfile: Operation = () => {
    const id = created[profiles % Math.max(1, created.length)];
    return id === undefined
      ? { method: "GET", path: "/v1/profiles?limit=5", expect: 200 }
      : { method: "GET", path: `/v1/profiles/${id}`, expect: 200 };
  };
  const findProfile: Operation = () => ({
    method: "GET",
    path: `/v1/profiles?phone_number=${encodeURIComponent(phoneNumber(2_000_000 + Math.max(1, profiles)))}`,
    expect: 200,
  });
  // Twenty requests: 2 profile creates, 3 reads, 15 sends (4 with an idempotency key, one of
  // them a replay), 10 to the working receiver, 2 to the failing one, 3 with no webhook.
  const mix: Operation[] = [
    createProfile,
    send("ok", "none"),
    readProfile,
    send("ok", "new"),
    send("failing", "none"),
    send("ok", "none"),
    findProfile,
    send("none", "none"),
    send("ok", "repeat"),
    send("ok", "none"),
    createProfile,
    send("ok", "new"),
    readProfile,
    send("none", "new"),
    send("ok", "none"),
    send("failing", "none"),
    send("ok", "none"),
    send("none", "none"),
    send("ok", "none"),
    send("ok", "none"),
  ];

  const start = Date.now();
  const latencies: number[][] = Array.from({ length: MINUTES + 1 }, () => []);
  const errorsByMinute: number[] = Array.from({ length: MINUTES + 1 }, () => 0);
  const errorSamples: string[] = [];
  let inFlight = 0;
  let skipped = 0;
  let issued = 0;
  let total = 0;
  let errorAnswers = 0;

  const fire = async (operation: Operation): Promise<void> => {
    const op = operation();
    const began = performance.now();
    const minute = Math.min(MINUTES, Math.floor((Date.now() - start) / MINUTE));
    inFlight += 1;
    try {
      const answer = await request(`${server.url}${op.path}`, {
        method: op.method,
        dispatcher: agent,
        headers: {
          authorization: `Bearer ${fixture.token}`,
          ...(op.body === undefined ? {} : { "content-type": "application/json" }),
          ...(op.key === undefined ? {} : { "idempotency-key": op.key }),
        },
        ...(op.body === undefined ? {} : { body: JSON.stringify(op.body) }),
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      const text = await answer.body.text();
      latencies[minute]?.push(performance.now() - began);
      total += 1;
      if (answer.statusCode !== op.expect) {
        errorAnswers += 1;
        errorsByMinute[minute] = (errorsByMinute[minute] ?? 0) + 1;
        if (errorSamples.length < 5)
          errorSamples.push(`${op.method} ${op.path} ${answer.statusCode} ${text.slice(0, 200)}`);
      } else {
        op.done?.(text);
      }
    } catch (error) {
      total += 1;
      errorAnswers += 1;
      errorsByMinute[minute] = (errorsByMinute[minute] ?? 0) + 1;
      if (errorSamples.length < 5) errorSamples.push(`${op.method} ${op.path}: ${String(error)}`);
    } finally {
      inFlight -= 1;
    }
  };

  const samples: Sample[] = [];
  const sample = async (minute: number, from: number) => {
    const { rssMiB, fds } = processFigures(server.pid);
    const db = await reader.read();
    const loop = server.takeLoopP99s();
    samples.push({
      minute,
      rssMiB,
      fds,
      loopP99Ms: loop.length === 0 ? null : Math.max(...loop),
      dbMiB: db.bytes / 2 ** 20,
      rows: db.rows,
      requests: latencies[from]?.length ?? 0,
      p99Ms: p99(latencies[from] ?? []),
      errors: errorsByMinute[from] ?? 0,
      load: loadavg()[0] ?? 0,
    });
    process.stderr.write(
      `[soak ${database}] minute ${minute}: ${JSON.stringify(samples.at(-1))}\n`,
    );
  };

  // Paced: every tick sends its share of the rate, so the load stays the same whatever the
  // latency; a tick that finds too many requests in flight skips its share (counted).
  const tickMs = 100;
  const perTick = RATE / (1000 / tickMs);
  let owed = 0;
  const end = start + MINUTES * MINUTE;
  let nextSample = start + MINUTE;
  await sample(0, 0);
  const pending = new Set<Promise<void>>();
  for (let tick = 0; Date.now() < end && tick < (MINUTES * MINUTE) / tickMs + 100; tick++) {
    owed += perTick;
    while (owed >= 1) {
      owed -= 1;
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped += 1;
        continue;
      }
      const operation = mix[issued % mix.length]!;
      issued += 1;
      const running = fire(operation);
      pending.add(running);
      void running.finally(() => pending.delete(running));
    }
    if (Date.now() >= nextSample) {
      const minute = Math.round((nextSample - start) / MINUTE);
      nextSample += MINUTE;
      await sample(minute, minute - 1);
    }
    const wait = start + (tick + 1) * tickMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await Promise.all(pending);
  if (samples.length <= MINUTES) await sample(MINUTES, MINUTES - 1);
  const exitCode = await server.stop();
  await reader.close();
  await agent.close();
  ok.server.close();
  failing.server.close();
  await fixture.dispose();
  return {
    database,
    samples,
    requests: total,
    errorAnswers,
    errorSamples,
    skipped,
    logLevels: server.levels,
    warnings: server.warnings,
    errorLines: server.errorLines,
    exitCode,
  };
}

/** Largest over smallest of `values`, as a spread (0.05 is 5 %). */
const spread = (values: number[]): number =>
  values.length === 0 ? 0 : Math.max(...values) / Math.max(1e-9, Math.min(...values)) - 1;

function report(result: SoakResult): string {
  const rows = result.samples.map((s) => [
    s.minute,
    fixed(s.rssMiB),
    s.fds,
    s.loopP99Ms === null ? "–" : fixed(s.loopP99Ms),
    fixed(s.dbMiB, 2),
    int(s.rows.messages ?? 0),
    int(s.rows.message_events ?? 0),
    int(s.rows.deliveries ?? 0),
    int(s.rows.delivery_attempts ?? 0),
    int(s.rows.idempotency_records ?? 0),
    int(s.rows.rate_limit_hits ?? 0),
    int(s.rows.profiles ?? 0),
    s.minute === 0 ? "–" : int(s.requests),
    s.p99Ms === null || s.minute === 0 ? "–" : fixed(s.p99Ms),
    s.minute === 0 ? "–" : s.errors,
    fixed(s.load, 2),
  ]);
  const steady = result.samples.filter((s) => s.minute >= STEADY_FROM);
  const rss = spread(steady.map((s) => s.rssMiB));
  const size = spread(steady.map((s) => s.dbMiB));
  const latency = steady.map((s) => s.p99Ms ?? 0);
  const firstHalf = latency.slice(0, Math.ceil(latency.length / 2));
  const secondHalf = latency.slice(Math.ceil(latency.length / 2));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const trend = mean(secondHalf) / Math.max(1e-9, mean(firstHalf));
  const warnings = [...result.warnings].map(([msg, n]) => `${n} × ${msg}`);
  return [
    `### ${result.database === "sqlite" ? "SQLite" : "PostgreSQL"}`,
    "",
    table(
      [
        "minute",
        "RSS MiB",
        "fds",
        "loop p99 ms",
        "db MiB",
        "messages",
        "events",
        "deliveries",
        "attempts",
        "idempotency",
        "rate hits",
        "profiles",
        "requests",
        "p99 ms",
        "errors",
        "load avg",
      ],
      rows,
    ),
    "",
    `- RSS from minute ${STEADY_FROM} on: spread ${fixed(rss * 100)} % (target within 10 %): ${verdict(rss <= 0.1)}`,
    `- Database size from minute ${STEADY_FROM} on: spread ${fixed(size * 100)} % (target within 10 %): ${verdict(size <= 0.1)}`,
    `- p99 latency from minute ${STEADY_FROM} on: second half ${fixed(trend, 2)}× the first (flat: at most 1.5×): ${verdict(trend <= 1.5)}`,
    `- Requests: ${int(result.requests)}, error answers: ${result.errorAnswers} (target 0): ${verdict(result.errorAnswers === 0)}${result.skipped > 0 ? `; ${result.skipped} skipped with ${MAX_IN_FLIGHT} in flight` : ""}`,
    ...result.errorSamples.map((e) => `  - \`${e}\``),
    `- Log: ${Object.entries(result.logLevels)
      .map(([level, n]) => `${int(n)} ${level}`)
      .join(
        ", ",
      )}; error lines: ${result.errorLines.length} (target 0): ${verdict(result.errorLines.length === 0)}; exit code ${result.exitCode}`,
    ...result.errorLines.slice(0, 5).map((e) => `  - \`${e}\``),
    `- Warnings: ${warnings.join("; ") || "none"}`,
  ].join("\n");
}

const databases: Database[] =
  args.database === "both" ? ["sqlite", "postgres"] : [args.database as Database];
const machine = describeMachine();

/** PostgreSQL's autovacuum setting, turned on for the run with `--autovacuum`; how it was. */
async function autovacuumFor<T>(run: () => Promise<T>): Promise<{ result: T; note: string }> {
  if (!databases.includes("postgres")) return { result: await run(), note: "" };
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  const setting = async () =>
    (await client.query<{ on: string }>("SELECT current_setting('autovacuum') AS on")).rows[0]?.on;
  const was = await setting();
  const turnOn = args.autovacuum && was === "off";
  try {
    if (turnOn) {
      await client.query("ALTER SYSTEM SET autovacuum = on");
      await client.query("SELECT pg_reload_conf()");
      // The reload is asynchronous; a new session sees it once it has been applied.
      for (let i = 0; i < 50 && (await setting()) !== "on"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const result = await run();
    const note = turnOn
      ? " PostgreSQL's autovacuum, off on this machine's cluster, was turned on for the run (`--autovacuum`), as a production server has it."
      : ` PostgreSQL's autovacuum was ${was}.`;
    return { result, note };
  } finally {
    if (turnOn) {
      await client.query("ALTER SYSTEM RESET autovacuum");
      await client.query("SELECT pg_reload_conf()");
    }
    await client.end();
  }
}

const { result: results, note: autovacuumNote } = await autovacuumFor(() =>
  Promise.all(databases.map((database) => soak(database))),
);
writeSection(
  "soak",
  [
    "## Soak: steady load with a short retention",
    "",
    machineLine(
      machine,
      `pnpm --filter @tidings/bench soak --minutes ${MINUTES} --database ${args.database} --rate ${RATE}${args.autovacuum ? " --autovacuum" : ""}`,
    ),
    "",
    `Each server ran ${MINUTES} minutes at ${RATE} requests/s (per 20: 2 profile creates, 3 profile reads, 15 sends, 4 of them with an Idempotency-Key and 1 of those a replay; 10 sends with a \`webhook_url\` to a receiver answering 200, 2 to one answering 503, 3 with none; each send makes 3 webhook deliveries through the sandbox lifecycle), with \`TIDINGS_RETENTION=${RETENTION}\`, \`TIDINGS_IDEMPOTENCY_TTL=${RETENTION}\`, a ${RETRY_WINDOW_MS / 1000} s webhook retry window (backoff 5 s doubling to 20 s) and logs at \`info\`.${databases.length > 1 ? " Both servers ran at the same time on this machine, and beside them the load generator and receivers (one process)." : ""} A sample is taken at each minute: RSS and open file descriptors of the server process (/proc), the worst event-loop delay p99 of the minute (a \`monitorEventLoopDelay\` preloaded into the server, reporting every 10 s), the database's size (SQLite: file plus WAL; PostgreSQL: tables with their indexes and TOAST), rows per table, and the p99 latency and error answers of the minute's requests as the client saw them. The figures count as steady from minute ${STEADY_FROM}: the retention, then the failing receiver's retry window, then a minute more.${autovacuumNote}`,
    "",
    ...results.flatMap((result) => [report(result), ""]),
  ].join("\n"),
);
process.stderr.write("soak: wrote bench/RESULTS.md\n");
