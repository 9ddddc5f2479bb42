// How soon `tidings serve` answers sends again once its storage is back: PostgreSQL's backends
// terminated, a PostgreSQL cluster stopped for 2 s and started, SQLite's disk full and then
// freed. Each fault is repeated ROUNDS times under a light load; a probe sends every 20 ms and
// the recovery is the time from the fault's end (the command that ends it has returned) to the
// first send answered 200. Target: within 2 s.
// Needs root (a tmpfs, and a PostgreSQL cluster of its own made with pg_createcluster); a part
// that cannot run here says so in the results.
// Run: pnpm --filter @tidings/bench recovery
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { request } from "undici";
import { describeMachine, machineLine } from "./harness/machine.js";
import { int, table, verdict } from "./harness/markdown.js";
import { writeSection } from "./harness/results.js";
import { type Env, freePort, startTidings, tidingsCli } from "./harness/tidings-process.js";

const ROUNDS = 5;
const TARGET_MS = 2000;
/** The longest a probe waits for the first 200 before the round counts as not recovered. */
const GIVE_UP_MS = 30_000;

interface Sender {
  url: string;
  token: string;
  campaignId: string;
}

async function sendOnce(sender: Sender, n: number): Promise<number> {
  try {
    const answer = await request(`${sender.url}/v1/messages/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${sender.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        campaign_id: sender.campaignId,
        recipient: {
          type: "phone_number",
          value: `+1415555${String(n % 10_000).padStart(4, "0")}`,
        },
        params: { pin: "1234" },
      }),
      headersTimeout: 5000,
      bodyTimeout: 5000,
    });
    await answer.body.dump();
    return answer.statusCode;
  } catch {
    return 0;
  }
}

/** Milliseconds from now to the first send answered 200 (probing every 20 ms), or null. */
async function timeToFirstSend(sender: Sender): Promise<number | null> {
  const start = performance.now();
  for (let n = 0; performance.now() - start < GIVE_UP_MS; n += 1) {
    if ((await sendOnce(sender, n)) === 200) return performance.now() - start;
    await sleep(20);
  }
  return null;
}

/** Two senders in the background, so the fault lands on work in flight. */
function backgroundLoad(sender: Sender): { stop(): Promise<{ statuses: Map<number, number> }> } {
  let stopped = false;
  const statuses = new Map<number, number>();
  const run = async (offset: number) => {
    for (let n = offset; !stopped && n < offset + 1_000_000; n += 1) {
      const status = await sendOnce(sender, n);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status !== 200) await sleep(50);
    }
  };
  const running = Promise.all([run(0), run(500_000)]);
  return {
    async stop() {
      stopped = true;
      await running;
      return { statuses };
    },
  };
}

async function makeSender(url: string, env: Env): Promise<Sender> {
  const { org_id } = await tidingsCli<{ org_id: string }>(
    ["orgs", "create", "--name", "Recovery"],
    env,
  );
  const { token } = await tidingsCli<{ token: string }>(
    ["keys", "create", "--org", org_id, "--scopes", "messages:send"],
    env,
  );
  const { campaign_id } = await tidingsCli<{ campaign_id: string }>(
    [
      ..."campaigns create --org".split(" "),
      org_id,
      ..."--name Login --channel sms --category otp --sender Acme --active".split(" "),
      "--template",
      "Your code is {{pin}}",
    ],
    env,
  );
  return { url, token, campaignId: campaign_id };
}

const serverEnv = (database: string): Env => ({
  TIDINGS_DATABASE_URL: database,
  TIDINGS_SECRET_KEY: randomBytes(32).toString("base64"),
  TIDINGS_DEV: "1",
  TIDINGS_SEND_RATE_LIMIT: "1000000/60s",
  TIDINGS_CONSOLE: "0",
  TIDINGS_METRICS: "0",
});

interface Row {
  fault: string;
  times: Array<number | null>;
  note: string;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Runs `fault` ROUNDS times under load; each answers the moment its fault ended, then probes. */
async function rounds(
  sender: Sender,
  fault: () => Promise<void>,
): Promise<{ times: Array<number | null>; statuses: Map<number, number> }> {
  const load = backgroundLoad(sender);
  const times: Array<number | null> = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    await sleep(500);
    await fault();
    times.push(await timeToFirstSend(sender));
  }
  const { statuses } = await load.stop();
  return { times, statuses };
}

const statusText = (statuses: Map<number, number>) =>
  [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status === 0 ? "no answer" : status}: ${int(count)}`)
    .join(", ");

function clusterVersion(): string | null {
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/pg_createcluster")) return null;
  return existsSync("/etc/postgresql")
    ? (readdirSync("/etc/postgresql").sort().at(-1) ?? null)
    : null;
}

async function postgresRows(): Promise<Row[]> {
  const version = clusterVersion();
  if (version === null) {
    return [{ fault: "PostgreSQL", times: [], note: "not run: needs root and pg_createcluster" }];
  }
  const name = `tidings_recovery_${randomBytes(4).toString("hex")}`;
  const port = await freePort();
  const ctl = (action: "start" | "stop") =>
    execFileSync("pg_ctlcluster", ["--skip-systemctl-redirect", version, name, action], {
      stdio: "ignore",
    });
  execFileSync(
    "pg_createcluster",
    [version, name, "-p", String(port), "--start", "--", "--auth-local=trust", "--auth-host=trust"],
    { stdio: "ignore" },
  );
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const app = `tidings_${name}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  admin.on("error", () => undefined);
  const env = serverEnv(`${url}?application_name=${app}`);
  const server = await startTidings(env);
  try {
    const sender = await makeSender(server.url, env);
    const terminated = await rounds(sender, async () => {
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        [app],
      );
    });
    const stopped = await rounds(sender, async () => {
      ctl("stop");
      await sleep(2000);
      ctl("start");
    });
    return [
      {
        fault: "PostgreSQL: the server's backends terminated",
        times: terminated.times,
        note: statusText(terminated.statuses),
      },
      {
        fault: "PostgreSQL: cluster stopped 2 s, then started",
        times: stopped.times,
        note: statusText(stopped.statuses),
      },
    ];
  } finally {
    await server.stop();
    await admin.end();
    execFileSync("pg_dropcluster", ["--stop", version, name], { stdio: "ignore" });
  }
}

async function sqliteRows(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "tidings-recovery-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", dir], { stdio: "ignore" });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return [{ fault: "SQLite", times: [], note: "not run: needs root to mount a tmpfs" }];
  }
  const env = serverEnv(`sqlite:${join(dir, "tidings.db")}`);
  const server = await startTidings(env);
  try {
    const sender = await makeSender(server.url, env);
    const filler = join(dir, "filler");
    const full = await rounds(sender, async () => {
      const fd = openSync(filler, "w");
      try {
        for (let i = 0; i < 1024; i += 1) writeSync(fd, Buffer.alloc(256 * 1024, 1));
      } catch {
        // ENOSPC: the disk is full.
      } finally {
        closeSync(fd);
      }
      // Until a send is refused: the fault has reached the server.
      for (let n = 0; n < 1000 && (await sendOnce(sender, n)) === 200; n += 1) await sleep(10);
      rmSync(filler);
    });
    return [
      {
        fault: "SQLite: disk full, then space freed",
        times: full.times,
        note: statusText(full.statuses),
      },
    ];
  } finally {
    await server.stop();
    execFileSync("umount", ["-l", dir], { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows = [...(await postgresRows()), ...(await sqliteRows())];
const measured = rows.flatMap((row) => row.times);
const recovered = measured.filter((t): t is number => t !== null);
const worst = recovered.length === 0 ? Number.NaN : Math.max(...recovered);
for (const row of rows) console.log(row.fault, row.times, row.note);

writeSection(
  "recovery",
  [
    "## Recovery after a storage fault",
    "",
    machineLine(describeMachine(), "pnpm --filter @tidings/bench recovery"),
    "",
    `\`tidings serve\` (built) under two senders in the background; each fault ${ROUNDS} times. Recovery is the time from the moment the fault ended (the command that ends it returned: \`pg_terminate_backend\`, \`pg_ctlcluster start\`, the filler file removed) to the first send answered 200, probing every 20 ms. Answers during the run are the background senders'; no 500 among them is the point.`,
    "",
    table(
      ["Fault", "median ms", "worst ms", "answers during the run"],
      rows.map((row) => {
        const times = row.times.filter((t): t is number => t !== null);
        const lost = row.times.length - times.length;
        return [
          row.fault,
          times.length === 0 ? "—" : int(median(times)),
          times.length === 0
            ? "—"
            : `${int(Math.max(...times))}${lost > 0 ? ` (${lost} never)` : ""}`,
          row.note,
        ];
      }),
    ),
    "",
    `Target: recovery within ${int(TARGET_MS)} ms of the storage coming back — ${verdict(
      recovered.length === measured.length && recovered.length > 0 && worst <= TARGET_MS,
    )} (worst ${Number.isNaN(worst) ? "—" : int(worst)} ms).`,
  ].join("\n"),
);
