// HTTP throughput: autocannon against `tidings serve` (SQLite and PostgreSQL), every figure
// beside a bare node:http server answering the same JSON and the straightforward server (the
// peer) on the same database in the same run. Each database writes its own section of
// RESULTS.md, so `BENCH_DB=postgres` reruns PostgreSQL alone.
// Run: pnpm --filter @tidings/bench http
//   (BENCH_DURATION_S, BENCH_WARMUP_S, BENCH_DB, BENCH_ONLY, BENCH_CPU_PROF,
//   BENCH_SQLITE_SYNCHRONOUS=full, BENCH_ABUSE=off (no limits, no suppressions), BENCH_SQL_TIMING=FILE: SQLite statement times of the
//   server, see harness/sql-timing-hook.mjs; BENCH_COUNTED_SENDS: sequential sends counted
//   per send on PostgreSQL, 500)

import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ABUSE_CHECKS_ON,
  BENCH_LIMITS,
  BENCH_SUPPRESSIONS,
  seedSuppressions,
  turnLimitsOn,
} from "./harness/abuse-protection.js";
import { call, seedProfiles } from "./harness/api.js";
import { type BareReply, startBareServer } from "./harness/bare-server.js";
import { type Context, type Endpoint, endpointsNamed, SEEDED } from "./harness/endpoints.js";
import { createFixture, type Database, OTP_TEMPLATE, otpSend } from "./harness/fixture.js";
import { durationS, type LoadRequest, type LoadResult, runLoad } from "./harness/load.js";
import { cpuMs, describeMachine, machineLine } from "./harness/machine.js";
import { fixed, int, table, verdict } from "./harness/markdown.js";
import {
  type PeerServer,
  type PgPeerServer,
  startPeerServer,
  startPgPeerServer,
} from "./harness/peer-server.js";
import {
  benchDatabase as benchDatabaseUrl,
  type PgCounters,
  PgStats,
  roundTripCounting,
  roundTrips,
  STATS_FLUSH_MS,
} from "./harness/pg-stats.js";
import { phoneNumber } from "./harness/phones.js";
import { writeSection } from "./harness/results.js";
import {
  sqlTiming,
  startTidings,
  TIDINGS_BIN,
  type TidingsServer,
} from "./harness/tidings-process.js";

const DURATION_S = durationS(10);
const WARMUP_S = Math.min(Number(process.env.BENCH_WARMUP_S ?? 1), DURATION_S);
const CONNECTIONS = [10, 50];
const DATABASES: Database[] = (process.env.BENCH_DB?.split(",") as Database[] | undefined) ?? [
  "sqlite",
  "postgres",
];
const ONLY = process.env.BENCH_ONLY;
const CPU_PROF = process.env.BENCH_CPU_PROF;
/** Node's arguments that write a CPU profile of each `tidings serve` into BENCH_CPU_PROF. */
const PROFILE_ARGS = CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", CPU_PROF] : [];
const SQL_TIMING = process.env.BENCH_SQL_TIMING;
/** SQLite's `synchronous` for Tidings and the peer alike: `normal` (the default) or `full`. */
const SYNCHRONOUS = process.env.BENCH_SQLITE_SYNCHRONOUS === "full" ? "full" : "normal";

const ENDPOINTS = endpointsNamed(ONLY);

const SEND = "POST /v1/messages/send";

/** The endpoints the straightforward servers (the peers) have, measured beside Tidings. */
const PEER_ENDPOINTS = ["POST /v1/profiles", "GET /v1/profiles/{id}", SEND];

/** How many sequential sends each PostgreSQL server makes for the per-send counts. */
const COUNTED_SENDS = Number(process.env.BENCH_COUNTED_SENDS ?? 500);
/** The databases of the PostgreSQL server that Tidings and its peer run in, one each. */
const TIDINGS_PG_DATABASE = "tidings_bench";
const PEER_PG_DATABASE = "tidings_bench_peer";

/**
 * The extra SQLite line that compares sends like for like: the same sends to a server whose
 * sandbox reports a day later, so neither of a send's two reports, which the peer does not
 * write, lands in the run. The SQLite send target reads it.
 */
const SEND_WITHOUT_REPORTS = `${SEND}, reports held back`;
/** The per-send counts of the sends alone: Tidings with its sandbox's reports held back. */
const HELD_BACK_COUNTS = "Tidings, reports held back";
const REPORTS_HELD_BACK_MS = "86400000";

interface Row {
  endpoint: string;
  database: Database;
  connections: number;
  tidings: Measured;
  bare: LoadResult;
  /** The straightforward server on the same request and database, same run. */
  peer: Measured | null;
}

/**
 * A run with the server's CPU time per request (`null` off Linux) and, on PostgreSQL, the CPU
 * time of the server's own backends per request.
 */
type Measured = LoadResult & {
  cpuUsPerRequest: number | null;
  databaseCpuUsPerRequest: number | null;
};

const bareResults = new Map<string, LoadResult>();
const rows: Row[] = [];
/** A server's high-water mark: over the whole run, and while each endpoint's runs lasted. */
interface PeakRss {
  database: Database;
  mib: number | null;
  byEndpoint: Array<{ endpoint: string; mib: number | null; sinceStart: boolean }>;
}
const peakRss: PeakRss[] = [];

/** What one sequential send cost a server on PostgreSQL, net of the same span idle. */
interface PerSend {
  server: string;
  sends: number;
  /** Wall time of the sends alone. */
  sendsS: number;
  /** The span counted, sends and waits included, and the idle span after it. */
  spanS: number;
  roundTrips: number;
  commits: number;
  walRecords: number;
  walWrites: number;
  walSyncs: number;
  nodeCpuUs: number | null;
  postgresCpuUs: number | null;
  /** The idle span's own figures, per second: what was taken away. */
  idlePerS: { roundTrips: number; commits: number; walSyncs: number };
}
const perSend: PerSend[] = [];

/** Load average (1, 5, 15 min) when each database's part started and ended. */
const loads = new Map<Database, { before: number[]; after: number[] }>();

/** How one endpoint's runs go on a server. */
interface RunOptions {
  /** The server's sandbox reports a day later, so no report lands after its sends. */
  reportsHeldBack: boolean;
}

/** A PostgreSQL server's backends and the bench's connection that finds them. */
interface Backends {
  stats: PgStats;
  applicationName: string;
}

/** The sample answer the bare server repeats: Tidings' own answer to the same request. */
async function sampleReply(url: string, token: string, request: LoadRequest): Promise<BareReply> {
  const body = request.body === undefined ? undefined : (JSON.parse(request.body) as unknown);
  return call(url, token, request.method, request.path, body);
}

async function measureBare(
  endpoint: string,
  connections: number,
  reply: BareReply,
  make: () => LoadRequest,
) {
  const key = `${endpoint}@${connections}`;
  if (bareResults.has(key)) return;
  const bare = await startBareServer({ "GET *": reply, "POST *": reply });
  try {
    await runLoad({ url: bare.url, connections, durationS: WARMUP_S, next: make });
    bareResults.set(
      key,
      await runLoad({ url: bare.url, connections, durationS: DURATION_S, next: make }),
    );
  } finally {
    await bare.stop();
  }
}

/** The CPU time of `backends` per request of `result`, in µs (`null` off Linux or on SQLite). */
const perRequest = (ms: number | null, result: LoadResult): number | null =>
  ms === null || result.total === 0 ? null : (ms * 1000) / result.total;

/** Runs `endpoint` against the peer, warmed up like Tidings. */
async function measurePeer(
  peer: { server: PeerServer; context: Context; backends: Backends | null },
  endpoint: Endpoint,
  connections: number,
): Promise<Measured> {
  const headers = { authorization: `Bearer ${peer.server.token}` };
  const next = endpoint.requests(peer.context);
  await runLoad({ url: peer.server.url, connections, durationS: WARMUP_S, headers, next });
  const before = cpuMs(peer.server.pid);
  const database = await peer.backends?.stats.backendCpu(peer.backends.applicationName);
  const result = await runLoad({
    url: peer.server.url,
    connections,
    durationS: DURATION_S,
    headers,
    next,
  });
  const databaseMs = (await database?.stop()) ?? null;
  return {
    ...result,
    cpuUsPerRequest: cpuPerRequest(peer.server.pid, before, result),
    databaseCpuUsPerRequest: perRequest(databaseMs, result),
  };
}

/**
 * Waits for the sandbox's delivered/seen reports of a send run to land (1 s apart each); not at
 * all on a server whose sandbox holds them back.
 */
async function settle(endpoint: Endpoint, { reportsHeldBack }: RunOptions): Promise<void> {
  if (endpoint.name.includes("send") && !reportsHeldBack) {
    await new Promise((r) => setTimeout(r, 2500));
  }
}

/** The server's CPU time since `before`, per request answered, in µs. */
function cpuPerRequest(pid: number, before: number | null, result: LoadResult): number | null {
  const after = cpuMs(pid);
  if (before === null || after === null || result.total === 0) return null;
  return ((after - before) * 1000) / result.total;
}

const cpuText = (us: number | null): string => (us === null ? "–" : int(us));
const mibText = (mib: number | null): string => (mib === null ? "n/a" : `${fixed(mib)} MiB`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One measured run of `endpoint` on Tidings, after its warm-up. */
async function measureTidings(
  server: TidingsServer,
  backends: Backends | null,
  endpoint: Endpoint,
  context: Context,
  headers: Record<string, string>,
  connections: number,
  options: RunOptions = { reportsHeldBack: false },
): Promise<Measured> {
  const next = endpoint.requests(context);
  await runLoad({ url: server.url, connections, durationS: WARMUP_S, headers, next });
  // Let the warm-up's sandbox reports land, so the CPU measured below is this run's.
  await settle(endpoint, options);
  const cpuBefore = cpuMs(server.pid);
  const database = await backends?.stats.backendCpu(backends.applicationName);
  const tidings = await runLoad({
    url: server.url,
    connections,
    durationS: DURATION_S,
    headers,
    next,
  });
  // The sandbox's delivered/seen reports of the sends are part of what a send costs.
  await settle(endpoint, options);
  const databaseMs = (await database?.stop()) ?? null;
  return {
    ...tidings,
    cpuUsPerRequest: cpuPerRequest(server.pid, cpuBefore, tidings),
    databaseCpuUsPerRequest: perRequest(databaseMs, tidings),
  };
}

/**
 * The sends of `measured` again, at the same connections in the same order, on a server of
 * their own whose sandbox holds its reports back, each beside the peer's sends of that run:
 * Tidings doing the peer's work and no more. On PostgreSQL (with `stats`) its sends are then
 * counted one by one as well.
 */
async function measureSendsWithoutReports(
  database: Database,
  measured: Row[],
  stats: PgStats | null,
): Promise<void> {
  const postgres = database === "postgres";
  const fixture = await createFixture(
    database,
    postgres ? await benchDatabaseUrl(TIDINGS_PG_DATABASE) : undefined,
  );
  await turnLimitsOn(fixture);
  const applicationName = `tidings-bench-held-back-${randomBytes(4).toString("hex")}`;
  const count = countFile("held-back");
  const counting = postgres ? roundTripCounting(count, TIDINGS_BIN) : null;
  const server = await startTidings(
    {
      ...fixture.env,
      TIDINGS_SQLITE_SYNCHRONOUS: SYNCHRONOUS,
      TIDINGS_SANDBOX_DELAY_MS: REPORTS_HELD_BACK_MS,
      ...counting?.env,
      ...(postgres ? { PGAPPNAME: applicationName } : {}),
    },
    [...PROFILE_ARGS, ...(counting?.nodeArgs ?? [])],
  );
  try {
    const ids = await seedProfiles(server.url, fixture.token, 0, SEEDED);
    await seedSuppressions(server.url, fixture.token);
    const [endpoint] = endpointsNamed(SEND);
    const headers = { authorization: `Bearer ${fixture.token}` };
    const context = { ids, campaignId: fixture.campaignId };
    const backends = stats === null ? null : { stats, applicationName };
    for (const row of measured) {
      const tidings = await measureTidings(
        server,
        backends,
        endpoint!,
        context,
        headers,
        row.connections,
        { reportsHeldBack: true },
      );
      rows.push({ ...row, endpoint: SEND_WITHOUT_REPORTS, tidings });
      console.log(
        `${database} ${SEND_WITHOUT_REPORTS} c=${row.connections}: ${int(tidings.requestsPerS)} req/s, p99 ${tidings.p99Ms} ms, CPU ${cpuText(tidings.cpuUsPerRequest)} µs/req${postgres ? `, PostgreSQL ${cpuText(tidings.databaseCpuUsPerRequest)}` : ""}`,
      );
    }
    if (stats !== null) {
      const counts = await countPerSend(stats, {
        name: HELD_BACK_COUNTS,
        url: server.url,
        token: fixture.token,
        campaignId: fixture.campaignId,
        pid: server.pid,
        database: TIDINGS_PG_DATABASE,
        applicationName,
        roundTripsFile: count,
      });
      perSend.push(counts);
      console.log(`per send, ${counts.server}: ${JSON.stringify(counts)}`);
    }
  } finally {
    await server.stop();
    await fixture.dispose();
    rmSync(count, { force: true });
  }
}

/** A PostgreSQL server whose sends are counted: where it runs and how to read its counts. */
interface Counted {
  name: string;
  url: string;
  token: string;
  campaignId: string;
  pid: number;
  /** The database it alone runs in. */
  database: string;
  applicationName: string;
  roundTripsFile: string;
}

/** Everything counted about a server at one moment. */
interface Snapshot extends PgCounters {
  at: number;
  roundTrips: number;
  nodeCpuMs: number | null;
}

async function snapshot(stats: PgStats, target: Counted): Promise<Snapshot> {
  return {
    ...(await stats.counters(target.database)),
    at: performance.now(),
    roundTrips: roundTrips(target.roundTripsFile),
    nodeCpuMs: cpuMs(target.pid),
  };
}

/**
 * `COUNTED_SENDS` sends one after another to `target`, and what they cost it per send: round
 * trips (the server's pg client calls), commits of its database, the cluster's WAL records,
 * writes and flushes, the server's CPU and its backends' CPU. Counted over the sends and the
 * `STATS_FLUSH_MS` after them (the sandbox's reports land meanwhile, and PostgreSQL reports
 * the backends' counts), then again over as long a span with no sends, which is taken away:
 * what the server does idle, and on this shared machine the WAL of every other database.
 */
async function countPerSend(stats: PgStats, target: Counted): Promise<PerSend> {
  const send = async (k: number) => {
    const request = JSON.parse(
      otpSend(target.campaignId, phoneNumber(k % SEEDED), k).body,
    ) as unknown;
    const answer = await call(target.url, target.token, "POST", "/v1/messages/send", request);
    if (answer.status !== 200) throw new Error(`counted send: ${answer.status} ${answer.body}`);
  };
  for (let k = 0; k < 50; k++) await send(k);
  await sleep(STATS_FLUSH_MS);
  const start = await snapshot(stats, target);
  const database = await stats.backendCpu(target.applicationName);
  for (let k = 0; k < COUNTED_SENDS; k++) await send(50 + k);
  const sendsS = (performance.now() - start.at) / 1000;
  await sleep(2500 + STATS_FLUSH_MS);
  const end = await snapshot(stats, target);
  const databaseMs = (await database?.stop()) ?? null;
  const spanMs = end.at - start.at;
  const idleDatabase = await stats.backendCpu(target.applicationName);
  await sleep(spanMs);
  const idle = await snapshot(stats, target);
  const idleDatabaseMs = (await idleDatabase?.stop()) ?? null;
  // The idle span is as long as the counted one, give or take the readings.
  const scale = spanMs / (idle.at - end.at);
  const net = (pick: (s: Snapshot) => number | null): number | null => {
    const [a, b, c] = [pick(start), pick(end), pick(idle)];
    if (a === null || b === null || c === null) return null;
    return (b - a - (c - b) * scale) / COUNTED_SENDS;
  };
  const idlePerS = (pick: (s: Snapshot) => number) =>
    ((pick(idle) - pick(end)) * 1000) / (idle.at - end.at);
  return {
    server: target.name,
    sends: COUNTED_SENDS,
    sendsS,
    spanS: spanMs / 1000,
    roundTrips: net((s) => s.roundTrips)!,
    commits: net((s) => s.commits)!,
    walRecords: net((s) => s.walRecords)!,
    walWrites: net((s) => s.walWrites)!,
    walSyncs: net((s) => s.walSyncs)!,
    nodeCpuUs: ((n) => (n === null ? null : n * 1000))(net((s) => s.nodeCpuMs)),
    postgresCpuUs:
      databaseMs === null || idleDatabaseMs === null
        ? null
        : ((databaseMs - idleDatabaseMs * scale) * 1000) / COUNTED_SENDS,
    idlePerS: {
      roundTrips: idlePerS((s) => s.roundTrips),
      commits: idlePerS((s) => s.commits),
      walSyncs: idlePerS((s) => s.walSyncs),
    },
  };
}

/** A file in the temporary directory for a process's round-trip count. */
const countFile = (name: string) =>
  join(tmpdir(), `tidings-bench-${name}-${randomBytes(4).toString("hex")}.count`);

async function benchDatabase(database: Database): Promise<void> {
  const before = loadavg();
  const postgres = database === "postgres";
  const stats = postgres ? await PgStats.open() : null;
  const tidingsPgUrl = postgres ? await benchDatabaseUrl(TIDINGS_PG_DATABASE) : undefined;
  const fixture = await createFixture(database, tidingsPgUrl);
  await turnLimitsOn(fixture);
  const timing = SQL_TIMING !== undefined && database === "sqlite" ? sqlTiming(SQL_TIMING) : null;
  const runId = randomBytes(4).toString("hex");
  const tidingsName = `tidings-bench-serve-${runId}`;
  const tidingsCount = countFile("serve");
  const counting = postgres ? roundTripCounting(tidingsCount, TIDINGS_BIN) : null;
  const server = await startTidings(
    {
      ...fixture.env,
      TIDINGS_SQLITE_SYNCHRONOUS: SYNCHRONOUS,
      ...timing?.env,
      ...counting?.env,
      // pg names every connection of the server so: its backends are found by it.
      ...(postgres ? { PGAPPNAME: tidingsName } : {}),
    },
    [...PROFILE_ARGS, ...(timing?.nodeArgs ?? []), ...(counting?.nodeArgs ?? [])],
  );
  const peerName = `tidings-bench-peer-${runId}`;
  const peerCount = countFile("peer");
  // The same send limit Tidings serves with here (lifted: BENCH_ENV).
  const limit = { template: OTP_TEMPLATE, rateLimit: 9_999_999, rateWindowMs: 1000 };
  const pgPeer: PgPeerServer | null = postgres
    ? await startPgPeerServer({
        ...limit,
        url: await benchDatabaseUrl(PEER_PG_DATABASE),
        applicationName: peerName,
        ...roundTripCounting(
          peerCount,
          fileURLToPath(new URL("./harness/pg-peer-server-main.ts", import.meta.url)),
        ),
      })
    : null;
  const peerServer: PeerServer =
    pgPeer ?? (await startPeerServer({ ...limit, synchronous: SYNCHRONOUS }));
  try {
    const ids = await seedProfiles(server.url, fixture.token, 0, SEEDED);
    await seedSuppressions(server.url, fixture.token);
    const context: Context = { ids, campaignId: fixture.campaignId };
    const tidingsBackends = stats === null ? null : { stats, applicationName: tidingsName };
    const peer = {
      server: peerServer,
      context: {
        ids: await seedProfiles(peerServer.url, peerServer.token, 0, SEEDED),
        campaignId: peerServer.campaignId,
      },
      backends: stats === null ? null : { stats, applicationName: peerName },
    };
    const headers = { authorization: `Bearer ${fixture.token}` };
    const seeded = server.takePeakRssMiB().mib;
    const byEndpoint: PeakRss["byEndpoint"] = [];
    for (const endpoint of ENDPOINTS) {
      const reply = await sampleReply(server.url, fixture.token, endpoint.requests(context)());
      for (const connections of CONNECTIONS) {
        await measureBare(endpoint.name, connections, reply, endpoint.requests(context));
        const tidings = await measureTidings(
          server,
          tidingsBackends,
          endpoint,
          context,
          headers,
          connections,
        );
        const bare = bareResults.get(`${endpoint.name}@${connections}`)!;
        const peerResult = PEER_ENDPOINTS.includes(endpoint.name)
          ? await measurePeer(peer, endpoint, connections)
          : null;
        rows.push({
          endpoint: endpoint.name,
          database,
          connections,
          tidings,
          bare,
          peer: peerResult,
        });
        const databaseCpu = (m: Measured | null) =>
          postgres ? `, PostgreSQL ${cpuText(m?.databaseCpuUsPerRequest ?? null)}` : "";
        console.log(
          `${database} ${endpoint.name} c=${connections}: ${int(tidings.requestsPerS)} req/s (peer ${peerResult === null ? "–" : int(peerResult.requestsPerS)}, bare ${int(bare.requestsPerS)}), p50 ${tidings.p50Ms} ms, p99 ${tidings.p99Ms} ms, CPU ${cpuText(tidings.cpuUsPerRequest)} µs/req${databaseCpu(tidings)} (peer ${cpuText(peerResult?.cpuUsPerRequest ?? null)}${databaseCpu(peerResult)}), failures ${tidings.failures} ${JSON.stringify(tidings.statusCodes)}`,
        );
      }
      const peak = server.takePeakRssMiB();
      byEndpoint.push({ endpoint: endpoint.name, ...peak });
      console.log(`${database} ${endpoint.name}: peak RSS ${mibText(peak.mib)}`);
    }
    const peaks = [seeded, ...byEndpoint.map((entry) => entry.mib)];
    peakRss.push({
      database,
      mib: peaks.includes(null) ? null : Math.max(...(peaks as number[])),
      byEndpoint,
    });
    if (stats !== null && pgPeer !== null && ENDPOINTS.some((e) => e.name === SEND)) {
      const counted: Counted[] = [
        {
          name: "Tidings",
          url: server.url,
          token: fixture.token,
          campaignId: fixture.campaignId,
          pid: server.pid,
          database: TIDINGS_PG_DATABASE,
          applicationName: tidingsName,
          roundTripsFile: tidingsCount,
        },
        {
          name: "PostgreSQL peer",
          url: pgPeer.url,
          token: pgPeer.token,
          campaignId: pgPeer.campaignId,
          pid: pgPeer.pid,
          database: PEER_PG_DATABASE,
          applicationName: peerName,
          roundTripsFile: peerCount,
        },
      ];
      for (const target of counted) {
        const counts = await countPerSend(stats, target);
        perSend.push(counts);
        console.log(`per send, ${target.name}: ${JSON.stringify(counts)}`);
      }
    }
  } finally {
    await peerServer.stop();
    await server.stop();
    await fixture.dispose();
    await stats?.close();
    rmSync(tidingsCount, { force: true });
    rmSync(peerCount, { force: true });
  }
  const sends = rows.filter((r) => r.database === database && r.endpoint === SEND && r.peer);
  if (sends.length > 0) {
    const countStats = postgres ? await PgStats.open() : null;
    try {
      await measureSendsWithoutReports(database, sends, countStats);
    } finally {
      await countStats?.close();
    }
  }
  loads.set(database, { before, after: loadavg() });
}
/**
 * Where `database`'s server's peak RSS comes from: its high-water mark while each endpoint's
 * runs (both numbers of connections, warm-ups included) lasted, the kernel's mark reset in
 * between.
 */
function peakRssLine(database: Database): string {
  const perDatabase = peakRss
    .filter((entry) => entry.database === database)
    .map(({ byEndpoint }) =>
      byEndpoint
        .map(
          ({ endpoint, mib, sinceStart }) =>
            `\`${endpoint}\` ${mibText(mib)}${sinceStart ? " (since the server started)" : ""}`,
        )
        .join(", "),
    );
  return `Peak RSS of \`tidings serve\` while each endpoint's runs lasted (both numbers of connections and their warm-ups; the kernel's high-water mark is set back to the RSS of the moment between endpoints, through \`/proc/PID/clear_refs\`, so an endpoint's figure is at least what the endpoint before it left; the target below takes the highest, seeding included): ${perDatabase.join(". ")}.`;
}

const loadText = (database: Database): string => {
  const load = loads.get(database);
  const text = (values: number[]) => values.map((v) => fixed(v, 2)).join(", ");
  return load === undefined
    ? ""
    : ` · load average (1, 5, 15 min) ${text(load.before)} when it started, ${text(load.after)} when it ended`;
};

const ratio = (a: number, b: number): string => `${fixed(a / b, 2)}×`;

/** The targets that read the peak RSS of `database`'s server. */
function rssTargets(database: Database): Array<[string, string, boolean | null]> {
  return peakRss
    .filter((entry) => entry.database === database)
    .map(({ mib }) => [
      `peak RSS of \`tidings serve\` (${database}) < 200 MB`,
      mib === null ? "n/a" : `${fixed(mib)} MiB`,
      mib === null ? null : mib * 1.048576 < 200,
    ]);
}

const targetTable = (targets: Array<[string, string, boolean | null]>): string =>
  table(
    ["Target", "Measured", "Verdict"],
    targets.map(([name, measured, met]) => [name, measured, met === null ? "n/a" : verdict(met)]),
  );

const COMMON = `autocannon in the bench process, ${DURATION_S} s per run after a ${WARMUP_S} s warm-up, against \`tidings serve\` (built \`dist/bin.js\`, its own process, \`TIDINGS_LOG_LEVEL=warn\`, \`NODE_ENV=production\`, send limit lifted to \`9999999/1s\`) and, in the same run, a bare node:http server in its own process answering Tidings' own JSON for that request (for scale only: no target reads it), and the straightforward server (the peer) on the same database: what a competent engineer writes in an afternoon on the same libraries (one node:http handler per route, libphonenumber-js/max, valibot, the API key checked against its SHA-256 on every request, a message and an event row per send, the rate limit counted from a hits table under the same lifted limit), in its own process with its own ${SEEDED} seeded profiles. ${SEEDED} profiles seeded through the API first; lookups rotate over them; every Tidings server runs with its organization's abuse limits on (\`${JSON.stringify(BENCH_LIMITS)}\`: each limit checked and counted on every send, none ever reached) and ${BENCH_SUPPRESSIONS.toLocaleString("en-US")} suppressed numbers (made through the API after the profiles, none of them sent to), so a send's checks are in every figure; the seeded numbers lie in ${SEEDED} different ranges (numbers sharing all but their last 3 digits), as real recipients do; every \`POST /v1/profiles\` carries a new phone number; sends are Viber OTP (\`${"{{brand}}"}\`, \`${"{{pin}}"}\`) to the seeded numbers through the sandbox provider. "CPU µs/req" is the server process's CPU time (user plus system, from \`/proc/PID/stat\`) over the measured run divided by the requests it answered; for sends Tidings' figure also takes in the 2.5 s after the run in which the sandbox's delivered and seen reports of those sends land (two more writes each, which the peer does not have), and the warm-up's reports land before the run starts. It holds up on a busy machine far better than req/s.`;

function sqliteReport(): string {
  const sqliteRows = rows.filter((r) => r.database === "sqlite");
  const body = table(
    [
      "Endpoint",
      "Conns",
      "req/s",
      "peer req/s",
      "vs peer",
      "bare req/s",
      "p50 ms",
      "p99 ms",
      "CPU µs/req",
      "peer CPU µs/req",
      "bare p50/p99 ms",
      "non-2xx+errors",
    ],
    sqliteRows.map((r) => [
      `\`${r.endpoint}\``,
      r.connections,
      int(r.tidings.requestsPerS),
      r.peer === null ? "" : int(r.peer.requestsPerS),
      r.peer === null ? "" : ratio(r.tidings.requestsPerS, r.peer.requestsPerS),
      int(r.bare.requestsPerS),
      r.tidings.p50Ms,
      r.tidings.p99Ms,
      cpuText(r.tidings.cpuUsPerRequest),
      r.peer === null ? "" : cpuText(r.peer.cpuUsPerRequest),
      `${r.bare.p50Ms} / ${r.bare.p99Ms}`,
      r.tidings.failures,
    ]),
  );
  const find = (endpoint: string, connections: number) =>
    sqliteRows.find((r) => r.endpoint === endpoint && r.connections === connections);
  const targets: Array<[string, string, boolean | null]> = [];
  // Sends: issue 46's, with every abuse limit on.
  for (const [label, line, times] of [
    ["`POST /v1/profiles`", "POST /v1/profiles", 1.5],
    [`\`${SEND}\`, reports held back on both sides`, SEND_WITHOUT_REPORTS, 2],
  ] as const) {
    const row = find(line, 50);
    const r = row?.peer ? row.tidings.requestsPerS / row.peer.requestsPerS : null;
    targets.push([
      `${label} ≥ ${times}× the straightforward server, 50 conns`,
      r === null ? "not run" : `${fixed(r, 2)}×`,
      r === null ? null : r >= times,
    ]);
  }
  const p99Rows = sqliteRows.filter(
    (r) => r.connections === 50 && r.endpoint !== SEND_WITHOUT_REPORTS,
  );
  for (const row of p99Rows) {
    targets.push([
      `\`${row.endpoint}\` p99 < 25 ms at 50 conns`,
      `${row.tidings.p99Ms} ms`,
      row.tidings.p99Ms < 25,
    ]);
  }
  targets.push(...rssTargets("sqlite"));
  return [
    "## HTTP throughput, SQLite",
    "",
    machineLine(describeMachine(), "pnpm --filter @tidings/bench http") + loadText("sqlite"),
    "",
    `${COMMON} The peer here is \`bench/src/harness/peer-server-main.ts\`: better-sqlite3 in WAL with synchronous NORMAL and one statement or transaction per request. Each server runs in a SQLite file of its own in the temporary directory. The line \`${SEND_WITHOUT_REPORTS}\` makes the same sends again, at each number of connections, to a second SQLite server whose sandbox reports a day later (\`TIDINGS_SANDBOX_DELAY_MS=${REPORTS_HELD_BACK_MS}\`), so Tidings writes what the peer writes (the message, its event, the rate-limit hit) and no report; it sits beside the peer's sends of the same run, is measured over the run alone as the peer is, and is the line the send target reads. The PostgreSQL figures are in the next section.`,
    "",
    body,
    "",
    peakRssLine("sqlite"),
    "",
    "### Targets (ratios from the same run)",
    "",
    targetTable(targets),
  ].join("\n");
}

function postgresReport(): string {
  const pgRows = rows.filter((r) => r.database === "postgres");
  const body = table(
    [
      "Endpoint",
      "Conns",
      "req/s",
      "peer req/s",
      "vs peer",
      "p50 ms",
      "p99 ms",
      "peer p99 ms",
      "CPU µs/req",
      "PostgreSQL CPU µs/req",
      "peer CPU µs/req",
      "peer PostgreSQL CPU µs/req",
      "bare req/s",
      "non-2xx+errors",
    ],
    pgRows.map((r) => [
      `\`${r.endpoint}\``,
      r.connections,
      int(r.tidings.requestsPerS),
      r.peer === null ? "" : int(r.peer.requestsPerS),
      r.peer === null ? "" : ratio(r.tidings.requestsPerS, r.peer.requestsPerS),
      r.tidings.p50Ms,
      r.tidings.p99Ms,
      r.peer === null ? "" : r.peer.p99Ms,
      cpuText(r.tidings.cpuUsPerRequest),
      cpuText(r.tidings.databaseCpuUsPerRequest),
      r.peer === null ? "" : cpuText(r.peer.cpuUsPerRequest),
      r.peer === null ? "" : cpuText(r.peer.databaseCpuUsPerRequest),
      int(r.bare.requestsPerS),
      r.peer === null ? r.tidings.failures : `${r.tidings.failures} (peer ${r.peer.failures})`,
    ]),
  );
  const counts = table(
    [
      "Server",
      "sends",
      "seconds of sends",
      "round trips",
      "commits",
      "WAL records",
      "WAL writes",
      "WAL flushes",
      "Node CPU µs",
      "PostgreSQL CPU µs",
    ],
    perSend.map((c) => [
      c.server,
      c.sends,
      fixed(c.sendsS, 1),
      fixed(c.roundTrips, 1),
      fixed(c.commits, 2),
      fixed(c.walRecords, 1),
      fixed(c.walWrites, 2),
      fixed(c.walSyncs, 2),
      cpuText(c.nodeCpuUs),
      cpuText(c.postgresCpuUs),
    ]),
  );
  const idle = perSend
    .map(
      (c) =>
        `${c.server} over ${fixed(c.spanS, 1)} s: ${fixed(c.idlePerS.roundTrips, 1)} round trips, ${fixed(c.idlePerS.commits, 1)} commits and ${fixed(c.idlePerS.walSyncs, 1)} WAL flushes a second`,
    )
    .join("; ");
  const find = (endpoint: string) =>
    pgRows.find((r) => r.endpoint === endpoint && r.connections === 50);
  const targets: Array<[string, string, boolean | null]> = [];
  // Issue 46's: sends at least 3.5 times the peer's, with every abuse limit on.
  for (const [endpoint, times] of [
    [SEND, 3.5],
    ["POST /v1/profiles", 1.5],
  ] as const) {
    const row = find(endpoint);
    const r = row?.peer ? row.tidings.requestsPerS / row.peer.requestsPerS : null;
    targets.push([
      `\`${endpoint}\` ≥ ${times}× the PostgreSQL peer, 50 conns`,
      r === null ? "not run" : `${fixed(r, 2)}×`,
      r === null ? null : r >= times,
    ]);
  }
  const sends = find(SEND);
  targets.push([
    `\`${SEND}\` p99 ≤ 100 ms, 50 conns`,
    sends === undefined ? "not run" : `${sends.tidings.p99Ms} ms`,
    sends === undefined ? null : sends.tidings.p99Ms <= 100,
  ]);
  const tidingsCounts = perSend.find((c) => c.server === HELD_BACK_COUNTS);
  targets.push([
    "3 round trips per send, abuse limits on (the send alone: sequential sends, reports held back; to the nearest whole, the rest is the server's own polls)",
    tidingsCounts === undefined ? "not run" : fixed(tidingsCounts.roundTrips, 1),
    tidingsCounts === undefined ? null : Math.round(tidingsCounts.roundTrips) <= 3,
  ]);
  targets.push(...rssTargets("postgres"));
  return [
    "## HTTP throughput, PostgreSQL",
    "",
    machineLine(describeMachine(), "BENCH_DB=postgres pnpm --filter @tidings/bench http") +
      loadText("postgres"),
    "",
    `${COMMON} The peer here is \`bench/src/harness/pg-peer-server-main.ts\`: node-postgres, a pool of 10 sending plain unnamed statements; every request starts with \`SELECT org, hash FROM keys WHERE id = $1\` (the key's id is part of its token); a profile is one autocommit INSERT; a send reads its campaign (as the SQLite peer does), then runs one transaction: \`BEGIN\`, \`pg_advisory_xact_lock(hashtext(key))\` (so the rate limit is exact), the key's hits in the window counted, the hit inserted, the profile found by phone and inserted if missing, the message and its \`message.sent\` event inserted, \`COMMIT\`. Its window and limit are the ones Tidings runs with here (9,999,999 a second), as for the SQLite peer, so it counts the last second's hits, not a minute's. Both run on the local PostgreSQL 15 (\`synchronous_commit\` on), each in a database of its own (\`${TIDINGS_PG_DATABASE}\` and \`${PEER_PG_DATABASE}\`, a new schema each run), over loopback TCP. "PostgreSQL CPU µs/req" is the CPU time of that server's own backends, the processes whose \`application_name\` the bench set for it (\`PGAPPNAME\` for \`tidings serve\`), found in \`pg_stat_activity\` every 200 ms and read from \`/proc\`: not the WAL writer, the checkpointer or the other engineers' backends. A row's Node and PostgreSQL figures together are what a request cost both processes. The line \`${SEND_WITHOUT_REPORTS}\` makes the same sends again to a second \`tidings serve\` on PostgreSQL whose sandbox reports a day later (\`TIDINGS_SANDBOX_DELAY_MS=${REPORTS_HELD_BACK_MS}\`): Tidings doing the peer's work and no more, beside the peer's sends of the same run; the targets read the real line.`,
    "",
    body,
    "",
    peakRssLine("postgres"),
    "",
    "### Per send, counted",
    "",
    `After the table's runs, each server makes ${COUNTED_SENDS} sends one after another (after 50 unmeasured ones and ${STATS_FLUSH_MS / 1000} s of quiet), to the seeded numbers: \`tidings serve\` with the sandbox's two reports of each send (two more transactions), the peer, and the second \`tidings serve\` whose reports are held back (the send alone). Counted from just before the first send to ${2.5 + STATS_FLUSH_MS / 1000} s after the last (PostgreSQL 15 reports a backend's counts at most once a second, and the rest 10 s after it goes idle; Tidings' reports land meanwhile), then once more over as long a span with no sends, which is taken away, and divided by the sends. Round trips: calls of pg's \`Client#query\` in the server's process, counted by \`bench/src/harness/pg-round-trips-hook.mjs\` (loaded with \`--import\`); each call waits for one ReadyForQuery, Tidings' \`BEGIN\` sent with a transaction's first statement included; connecting is not counted. Commits: \`pg_stat_database.xact_commit\` of the server's own database, which counts every transaction, a read-only statement sent alone included (the peer's key and campaign reads are two of its three); the WAL flushes tell the durable ones. WAL: \`pg_stat_wal\` (records, \`wal_write\`, and \`wal_sync\` as flushes), which is the whole cluster's: the idle span takes away the rest of the cluster's WAL only as far as it was steady, so on a shared machine these three are the roughest figures. Node CPU is the server process's, PostgreSQL CPU its own backends' as above; both pools (pg's defaults) close connections idle for 10 s, so each server opens its first connection again inside the span. What the idle spans took away: ${idle}.`,
    "",
    counts,
    "",
    "### Targets (ratios from the same run)",
    "",
    targetTable(targets),
  ].join("\n");
}

for (const database of DATABASES) await benchDatabase(database);
// A partial or profiled run prints its figures but leaves RESULTS.md to the full run.
const partial =
  !ABUSE_CHECKS_ON ||
  ONLY !== undefined ||
  CPU_PROF !== undefined ||
  SQL_TIMING !== undefined ||
  SYNCHRONOUS === "full";
const reports: Array<[string, Database, () => string]> = [
  ["http", "sqlite", sqliteReport],
  ["http-postgres", "postgres", postgresReport],
];
for (const [section, database, report] of reports) {
  if (!DATABASES.includes(database)) continue;
  const markdown = report();
  if (!partial) writeSection(section, markdown);
  console.log(markdown);
}
