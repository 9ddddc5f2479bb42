// The webhook delivery engine of `tidings serve` draining a recovered backlog: 10,000
// `message.sent` deliveries to one subscription, each failed once by its receiver, requeued
// together with `POST /v1/webhooks/{id}/recover` once the receiver answers 200 again, timed from
// the first 2xx to the last. SQLite and PostgreSQL in the same run; every attempt must be
// recorded (two attempt rows per delivery).
//
// Run: pnpm --filter @tidings/bench webhooks-serve (after `pnpm --filter @tidings/bench
// build-packages`). BENCH_BEFORE_BIN=/path/to/other/build/packages/server/dist/bin.js adds that
// build's `tidings serve` beside this one's, each database, same run.
import { randomBytes } from "node:crypto";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { postgresStorage, preparedStatements } from "@tidings/adapter-postgres";
import { sqliteStorage } from "@tidings/adapter-sqlite";
import {
  createIds,
  type DeliveryRecord,
  destinationKey,
  isoAt,
  messageEventBody,
  type Storage,
} from "@tidings/core";
import { aDelivery } from "@tidings/core/testing";
import Database from "better-sqlite3";
import pg from "pg";
import { call } from "./harness/api.js";
import { createFixture, type Database as DatabaseKind, type Fixture } from "./harness/fixture.js";
import { cpuMs, describeMachine, machineLine } from "./harness/machine.js";
import { fixed, int, table, verdict } from "./harness/markdown.js";
import {
  benchDatabase,
  type PgCounters,
  PgStats,
  roundTripCounting,
  roundTrips,
  STATS_FLUSH_MS,
} from "./harness/pg-stats.js";
import { type Receiver, startReceiver } from "./harness/receiver.js";
import { writeSection } from "./harness/results.js";
import { startTidings, TIDINGS_BIN } from "./harness/tidings-process.js";
import { benchMessage } from "./harness/webhook-rig.js";

const DELIVERIES = Number(process.env.BENCH_HOOKS_DELIVERIES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_HOOKS_ROUNDS ?? 2);
const DATABASES = (process.env.BENCH_HOOKS_DATABASES ?? "sqlite,postgres").split(
  ",",
) as DatabaseKind[];
const BEFORE_BIN = process.env.BENCH_BEFORE_BIN;
/** The database of the benchmarks' PostgreSQL this benchmark's schemas live in. */
const PG_DATABASE = "tidings_bench_webhooks";
/** The longest a phase (the failing one, the drain) may take. */
const TIMEOUT_MS = 180_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A build of `tidings serve` to measure. */
interface Build {
  name: string;
  bin: string;
}

/**
 * The builds measured, last the current one: BENCH_BUILDS ("name=bin,name=bin", other builds'
 * `packages/server/dist/bin.js`) and BENCH_BEFORE_BIN (one named "before") come first.
 */
const BUILDS: Build[] = [
  ...(process.env.BENCH_BUILDS ?? "")
    .split(",")
    .filter((entry) => entry.includes("="))
    .map((entry) => {
      const [name, bin] = entry.split("=") as [string, string];
      return { name, bin };
    }),
  ...(BEFORE_BIN ? [{ name: "before", bin: BEFORE_BIN }] : []),
  { name: BEFORE_BIN ? "after" : "this build", bin: TIDINGS_BIN },
];

/** Counting rows of the server's database from the bench's own connection. */
interface Rows {
  count(table: string, where?: string): Promise<number>;
  close(): Promise<void>;
}

function openRows(fixture: Fixture, pgUrl: string): Rows {
  if (fixture.sqlitePath !== null) {
    const db = new Database(fixture.sqlitePath, { readonly: true });
    return {
      count: async (table, where = "1 = 1") =>
        (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n,
      close: async () => {
        db.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: pgUrl, max: 1 });
  return {
    count: async (table, where = "1 = 1") => {
      const { rows } = await pool.query<{ n: string }>(
        `SELECT COUNT(*) AS n FROM "${fixture.pgSchema}".${table} WHERE ${where}`,
      );
      return Number(rows[0]?.n ?? 0);
    },
    close: () => pool.end(),
  };
}

/** Storage of the server's database, opened by the bench to seed it. */
async function openStorage(
  fixture: Fixture,
  pgUrl: string,
): Promise<{ storage: Storage; close: () => Promise<void> }> {
  if (fixture.sqlitePath !== null) {
    const db = new Database(fixture.sqlitePath);
    const storage = sqliteStorage(db);
    return {
      storage,
      async close() {
        await storage.close();
        if (db.open) db.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: pgUrl, max: 1 });
  const schema = fixture.pgSchema!;
  const storage = postgresStorage(preparedStatements(pool), { schema });
  return {
    storage,
    async close() {
      await storage.close();
      await pool.end();
    },
  };
}

/**
 * `count` pending `message.sent` deliveries to subscription `webhookId`, due now, inserted in
 * one transaction, as a send's outbox writes them (with the body a send's event makes).
 */
async function seedDeliveries(
  storage: Storage,
  organizationId: string,
  webhookId: string,
  receiverUrl: string,
  count: number,
): Promise<void> {
  const ids = createIds();
  const at = isoAt(Date.now());
  const key = destinationKey(organizationId, receiverUrl);
  const made: DeliveryRecord[] = Array.from({ length: count }, () => {
    const id = ids.uuidv7();
    const messageId = ids.uuidv7();
    return aDelivery({
      id,
      organizationId,
      eventId: ids.uuidv7(),
      messageId,
      topic: "message.sent",
      destination: { kind: "subscription", webhookId },
      destinationKey: key,
      payload: messageEventBody(
        id,
        "message.sent",
        at,
        benchMessage(messageId, organizationId, at, "sent"),
        null,
      ),
      nextAttemptAt: at,
      createdAt: at,
      updatedAt: at,
    });
  });
  for (let start = 0; start < made.length; start += 1000) {
    await storage.transaction(async (tx) => {
      for (const d of made.slice(start, start + 1000)) await tx.deliveries.insert(d);
    });
  }
}

/** Polls `done` every 50 ms until it holds; throws after TIMEOUT_MS. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  while (Date.now() - start < TIMEOUT_MS) {
    if (await done()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** What one drain cost PostgreSQL and the server, per delivery. */
interface PerDelivery {
  roundTrips: number;
  commits: number;
  walRecords: number;
  walSyncs: number;
  postgresCpuUs: number | null;
}

interface Run {
  database: DatabaseKind;
  build: string;
  round: number;
  delivered: number;
  seconds: number;
  perS: number;
  attemptRows: number;
  attemptsPerDelivery: number;
  nodeCpuUs: number | null;
  loadBefore: number;
  perDelivery: PerDelivery | null;
}

async function runOnce(
  database: DatabaseKind,
  build: Build,
  round: number,
  receiver: Receiver,
  stats: PgStats | null,
): Promise<Run> {
  const pgUrl = await benchDatabase(PG_DATABASE);
  const fixture = await createFixture(database, pgUrl, build.bin);
  const applicationName = `tidings-hooks-${randomBytes(3).toString("hex")}`;
  const countFile = join(tmpdir(), `tidings-bench-hooks-${randomBytes(4).toString("hex")}.count`);
  const counting = database === "postgres" ? roundTripCounting(countFile, build.bin) : null;
  receiver.reset();
  receiver.setMode("fail");
  const server = await startTidings(
    {
      ...fixture.env,
      TIDINGS_DEV: "1",
      // The first failure ends the retry window: each delivery is failed after one attempt.
      TIDINGS_WEBHOOK_RETRY_WINDOW_MS: "1",
      ...(database === "postgres" ? { PGAPPNAME: applicationName } : {}),
      ...(counting?.env ?? {}),
    },
    counting?.nodeArgs ?? [],
    build.bin,
  );
  const rows = openRows(fixture, pgUrl);
  try {
    const created = await call(server.url, fixture.token, "POST", "/v1/webhooks", {
      url: receiver.url,
      topics: ["message.sent"],
    });
    if (created.status !== 201) throw new Error(`webhook: ${created.status} ${created.body}`);
    const webhookId = (JSON.parse(created.body) as { webhook_id: string }).webhook_id;
    const since = isoAt(Date.now() - 60_000);

    // The backlog, failed once each by the receiver.
    const seeding = await openStorage(fixture, pgUrl);
    try {
      await seedDeliveries(seeding.storage, fixture.orgId, webhookId, receiver.url, DELIVERIES);
    } finally {
      await seeding.close();
    }
    await until("the first attempts", async () => {
      return (await rows.count("deliveries", "status = 'failed'")) === DELIVERIES;
    });
    const firstAttempts = await rows.count("delivery_attempts");
    if (firstAttempts !== DELIVERIES) {
      throw new Error(`${firstAttempts} first attempts recorded for ${DELIVERIES} deliveries`);
    }

    // The receiver is back; the backlog is requeued at once.
    receiver.reset();
    receiver.setMode("ok");
    if (stats) await sleep(STATS_FLUSH_MS);
    const loadBefore = loadavg()[0] ?? Number.NaN;
    const before: PgCounters | null = stats ? await stats.counters(PG_DATABASE) : null;
    const tripsBefore = roundTrips(countFile);
    const backendCpu = stats ? await stats.backendCpu(applicationName) : null;
    const cpuBefore = cpuMs(server.pid);
    const recovered = await call(
      server.url,
      fixture.token,
      "POST",
      `/v1/webhooks/${webhookId}/recover`,
      { since },
    );
    const requeued = (JSON.parse(recovered.body) as { requeued?: number }).requeued;
    if (recovered.status !== 202 || requeued !== DELIVERIES) {
      throw new Error(`recover: ${recovered.status} ${recovered.body}`);
    }
    await until("the drain", async () => (await receiver.count()).received >= DELIVERIES);
    await until(
      "every attempt recorded",
      async () => (await rows.count("deliveries", "status = 'delivered'")) === DELIVERIES,
    );
    const cpuAfter = cpuMs(server.pid);
    const attemptRows = await rows.count("delivery_attempts");
    const { receipts } = await receiver.report();
    const times = [...receipts.values()];
    const first = Math.min(...times);
    const last = Math.max(...times);
    const seconds = (last - first) / 1000;

    let perDelivery: PerDelivery | null = null;
    if (stats && before) {
      const trips = roundTrips(countFile) - tripsBefore;
      await sleep(STATS_FLUSH_MS);
      const after = await stats.counters(PG_DATABASE);
      const backendMs = (await backendCpu?.stop()) ?? null;
      perDelivery = {
        roundTrips: trips / DELIVERIES,
        commits: (after.commits - before.commits) / DELIVERIES,
        walRecords: (after.walRecords - before.walRecords) / DELIVERIES,
        walSyncs: (after.walSyncs - before.walSyncs) / DELIVERIES,
        postgresCpuUs: backendMs === null ? null : (backendMs * 1000) / DELIVERIES,
      };
    }
    return {
      database,
      build: build.name,
      round,
      delivered: receipts.size,
      seconds,
      perS: receipts.size / seconds,
      attemptRows,
      attemptsPerDelivery: attemptRows / DELIVERIES,
      nodeCpuUs:
        cpuBefore === null || cpuAfter === null
          ? null
          : ((cpuAfter - cpuBefore) * 1000) / DELIVERIES,
      loadBefore,
      perDelivery,
    };
  } finally {
    await rows.close();
    await server.stop();
    await fixture.dispose();
  }
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const machine = describeMachine();
const loadAtStart = loadavg();
const receiver = await startReceiver();
const stats = DATABASES.includes("postgres") ? await PgStats.open() : null;
const runs: Run[] = [];
try {
  // Rounds alternate builds and databases, so a busy spell of the shared machine spreads out.
  for (let round = 1; round <= ROUNDS; round++) {
    for (const database of DATABASES) {
      for (const build of BUILDS) {
        const run = await runOnce(
          database,
          build,
          round,
          receiver,
          database === "postgres" ? stats : null,
        );
        runs.push(run);
        process.stderr.write(
          `${database} ${build.name} round ${round}: ${int(run.perS)}/s over ${fixed(run.seconds, 2)} s, ${fixed(run.attemptsPerDelivery, 2)} attempts recorded per delivery${run.perDelivery ? `, ${fixed(run.perDelivery.roundTrips, 2)} round trips, ${fixed(run.perDelivery.commits, 2)} commits, ${fixed(run.perDelivery.walSyncs, 2)} WAL flushes per delivery` : ""} (load ${fixed(run.loadBefore, 2)})\n`,
        );
      }
    }
  }
} finally {
  await stats?.close();
  await receiver.close();
}
const loadAtEnd = loadavg();

const rate = (database: DatabaseKind, build: string) =>
  median(runs.filter((r) => r.database === database && r.build === build).map((r) => r.perS));
const current = BUILDS.at(-1)!.name;
const ratioOf = (build: string) => rate("postgres", build) / rate("sqlite", build);
const everyAttempt = runs.every(
  (r) => r.delivered === DELIVERIES && r.attemptRows === 2 * DELIVERIES,
);
const both = DATABASES.includes("sqlite") && DATABASES.includes("postgres");

const opt = (n: number | null | undefined, digits = 1) =>
  n === null || n === undefined ? "" : fixed(n, digits);
writeSection(
  "webhooks-serve",
  [
    "## Webhook engine through `tidings serve`: a recovered backlog",
    "",
    machineLine(machine, "pnpm --filter @tidings/bench webhooks-serve"),
    "",
    `Load average (1, 5, 15 min) at the start ${loadAtStart.map((l) => fixed(l, 2)).join(", ")}, at the end ${loadAtEnd.map((l) => fixed(l, 2)).join(", ")}; each run's 1-minute load as its drain started is in the table.`,
    "",
    `\`tidings serve\` (built \`dist/bin.js\`, its own process, engine defaults: 64 attempts in flight, 8 per destination) with one subscription to a receiver in a process of its own (node:http on loopback, answering at once). ${int(DELIVERIES)} pending \`message.sent\` deliveries to it (each with the body a send's event makes) are written into the server's database by the bench in transactions of 1,000 through the storage adapter; the receiver answers 500 to all (3 ms late), and with \`TIDINGS_WEBHOOK_RETRY_WINDOW_MS=1\` each delivery is failed after that one attempt. Then the receiver answers 200, and \`POST /v1/webhooks/{id}/recover\` requeues the ${int(DELIVERIES)} together. "Seconds" runs from the receiver's first 2xx to its last; a run counts only once every delivery is \`delivered\` and there are exactly 2 attempt rows per delivery. SQLite: a file in the temporary directory (WAL, \`synchronous=NORMAL\` as \`tidings serve\` opens it). PostgreSQL: a new schema of the database \`${PG_DATABASE}\` of the local PostgreSQL 15 (\`synchronous_commit\` on) over loopback TCP. Per delivery on PostgreSQL, from just before the recover call to ${STATS_FLUSH_MS / 1000} s after the last delivery was recorded: round trips (calls of pg's \`Client#query\` in the server, \`bench/src/harness/pg-round-trips-hook.mjs\`), commits of the database (\`pg_stat_database.xact_commit\`), WAL records and flushes (\`pg_stat_wal\`, the whole cluster's, so other databases' work on this shared machine counts in), CPU of the server's own backends; the engine's idle polls in the ${STATS_FLUSH_MS / 1000} s add about one round trip a second. Node CPU is the server process's over the drain. ${ROUNDS} rounds; rounds alternate databases${BEFORE_BIN ? ' and builds ("before" is the build before this change, run from a copy of its `dist`)' : ""}; the ratio reads the medians.`,
    "",
    table(
      [
        "database",
        "build",
        "round",
        "delivered",
        "seconds",
        "deliveries/s",
        "attempt rows / delivery",
        "Node CPU µs / delivery",
        "round trips / delivery",
        "commits / delivery",
        "WAL records / delivery",
        "WAL flushes / delivery",
        "PostgreSQL CPU µs / delivery",
        "load",
      ],
      runs.map((r) => [
        r.database,
        r.build,
        r.round,
        int(r.delivered),
        fixed(r.seconds, 2),
        int(r.perS),
        fixed(r.attemptsPerDelivery, 2),
        opt(r.nodeCpuUs, 0),
        opt(r.perDelivery?.roundTrips, 2),
        opt(r.perDelivery?.commits, 2),
        opt(r.perDelivery?.walRecords, 1),
        opt(r.perDelivery?.walSyncs, 2),
        opt(r.perDelivery?.postgresCpuUs, 0),
        fixed(r.loadBefore, 2),
      ]),
    ),
    "",
    ...(both
      ? [
          table(
            ["build", "SQLite median/s", "PostgreSQL median/s", "PostgreSQL ÷ SQLite"],
            BUILDS.map((b) => [
              b.name,
              int(rate("sqlite", b.name)),
              int(rate("postgres", b.name)),
              `${fixed(ratioOf(b.name), 2)}×`,
            ]),
          ),
          "",
          `Target: PostgreSQL ≥ 0.5× SQLite, every attempt recorded — ${verdict(ratioOf(current) >= 0.5 && everyAttempt)} (${fixed(ratioOf(current), 2)}×${everyAttempt ? ", 2 attempt rows per delivery in every run" : ", **attempts missing**"}).`,
        ]
      : []),
  ].join("\n"),
);
process.stderr.write("wrote the webhooks-serve section of RESULTS.md\n");
