// HTTP throughput: autocannon against `tidings serve` (SQLite and PostgreSQL), every figure
// beside a bare node:http server answering the same JSON in the same run.
// Run: pnpm --filter @tidings/bench http
//   (BENCH_DURATION_S, BENCH_DB, BENCH_ONLY, BENCH_CPU_PROF, BENCH_SQLITE_SYNCHRONOUS=full,
//   BENCH_SQL_TIMING=FILE: SQLite statement times of the server, see harness/sql-timing-hook.mjs)

import { call, seedProfiles } from "./harness/api.js";
import { type BareReply, startBareServer } from "./harness/bare-server.js";
import { type Context, type Endpoint, endpointsNamed, SEEDED } from "./harness/endpoints.js";
import { createFixture, type Database, OTP_TEMPLATE } from "./harness/fixture.js";
import { durationS, type LoadRequest, type LoadResult, runLoad } from "./harness/load.js";
import {
  cpuMs,
  describeMachine,
  machineLine,
  postgresCpuMs,
  postgresCpuSince,
} from "./harness/machine.js";
import { fixed, int, percent, table, verdict } from "./harness/markdown.js";
import { type PeerServer, startPeerServer } from "./harness/peer-server.js";
import { writeSection } from "./harness/results.js";
import { sqlTiming, startTidings, type TidingsServer } from "./harness/tidings-process.js";

const DURATION_S = durationS(10);
const WARMUP_S = Math.min(Number(process.env.BENCH_WARMUP_S ?? 1), DURATION_S);
const CONNECTIONS = [10, 50];
const DATABASES: Database[] = (process.env.BENCH_DB?.split(",") as Database[] | undefined) ?? [
  "sqlite",
  "postgres",
];
const ONLY = process.env.BENCH_ONLY;
const CPU_PROF = process.env.BENCH_CPU_PROF;
const SQL_TIMING = process.env.BENCH_SQL_TIMING;
/** SQLite's `synchronous` for Tidings and the peer alike: `normal` (the default) or `full`. */
const SYNCHRONOUS = process.env.BENCH_SQLITE_SYNCHRONOUS === "full" ? "full" : "normal";

const ENDPOINTS = endpointsNamed(ONLY);

const SEND = "POST /v1/messages/send";

/** The endpoints the straightforward server (the peer) has, measured beside Tidings on SQLite. */
const PEER_ENDPOINTS = ["POST /v1/profiles", "GET /v1/profiles/{id}", SEND];

/**
 * The extra SQLite line that compares sends like for like: the same sends to a server whose
 * sandbox reports a day later, so neither of a send's two reports, which the peer does not
 * write, lands in the run. Informational; the targets read the real line.
 */
const SEND_WITHOUT_REPORTS = `${SEND}, reports held back`;
const REPORTS_HELD_BACK_MS = "86400000";

interface Row {
  endpoint: string;
  database: Database;
  connections: number;
  tidings: Measured;
  /** PostgreSQL's own CPU time per request in the same run (`null` on SQLite or off Linux). */
  databaseCpuUsPerRequest: number | null;
  bare: LoadResult;
  /** The straightforward server on the same request, same run (SQLite only). */
  peer: Measured | null;
}

/** A run with the server's CPU time per request (`null` off Linux). */
type Measured = LoadResult & { cpuUsPerRequest: number | null };

const bareResults = new Map<string, LoadResult>();
const rows: Row[] = [];
/** A server's high-water mark: over the whole run, and while each endpoint's runs lasted. */
interface PeakRss {
  database: Database;
  mib: number | null;
  byEndpoint: Array<{ endpoint: string; mib: number | null; sinceStart: boolean }>;
}
const peakRss: PeakRss[] = [];

/** How one endpoint's runs go on a server. */
interface RunOptions {
  /** The server's sandbox reports a day later, so no report lands after its sends. */
  reportsHeldBack: boolean;
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

/** Runs `endpoint` against the peer, warmed up like Tidings. */
async function measurePeer(
  peer: { server: PeerServer; context: Context },
  endpoint: Endpoint,
  connections: number,
): Promise<Measured> {
  const headers = { authorization: `Bearer ${peer.server.token}` };
  const next = endpoint.requests(peer.context);
  await runLoad({ url: peer.server.url, connections, durationS: WARMUP_S, headers, next });
  const before = cpuMs(peer.server.pid);
  const result = await runLoad({
    url: peer.server.url,
    connections,
    durationS: DURATION_S,
    headers,
    next,
  });
  return { ...result, cpuUsPerRequest: cpuPerRequest(peer.server.pid, before, result) };
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

/** One measured run of `endpoint` on Tidings, after its warm-up. */
async function measureTidings(
  server: TidingsServer,
  database: Database,
  endpoint: Endpoint,
  context: Context,
  headers: Record<string, string>,
  connections: number,
  options: RunOptions = { reportsHeldBack: false },
) {
  const next = endpoint.requests(context);
  await runLoad({ url: server.url, connections, durationS: WARMUP_S, headers, next });
  // Let the warm-up's sandbox reports land, so the CPU measured below is this run's.
  await settle(endpoint, options);
  const cpuBefore = cpuMs(server.pid);
  const databaseBefore = database === "postgres" ? postgresCpuMs() : null;
  const tidings = await runLoad({
    url: server.url,
    connections,
    durationS: DURATION_S,
    headers,
    next,
  });
  // The sandbox's delivered/seen reports of the sends are part of what a send costs.
  await settle(endpoint, options);
  const tidingsCpu = cpuPerRequest(server.pid, cpuBefore, tidings);
  const databaseMs = postgresCpuSince(databaseBefore);
  const databaseCpu =
    databaseMs === null || tidings.total === 0 ? null : (databaseMs * 1000) / tidings.total;
  return { tidings, tidingsCpu, databaseCpu };
}

/**
 * The sends of `measured` again, at the same connections in the same order, on a SQLite server
 * of their own whose sandbox holds its reports back, each beside the peer's sends of that
 * run: Tidings doing the peer's work and no more.
 */
async function measureSendsWithoutReports(measured: Row[]): Promise<void> {
  const fixture = await createFixture("sqlite");
  const server = await startTidings({
    ...fixture.env,
    TIDINGS_SQLITE_SYNCHRONOUS: SYNCHRONOUS,
    TIDINGS_SANDBOX_DELAY_MS: REPORTS_HELD_BACK_MS,
  });
  try {
    const ids = await seedProfiles(server.url, fixture.token, 0, SEEDED);
    const [endpoint] = endpointsNamed(SEND);
    const headers = { authorization: `Bearer ${fixture.token}` };
    const context = { ids, campaignId: fixture.campaignId };
    for (const row of measured) {
      const { tidings, tidingsCpu } = await measureTidings(
        server,
        "sqlite",
        endpoint!,
        context,
        headers,
        row.connections,
        { reportsHeldBack: true },
      );
      rows.push({
        ...row,
        endpoint: SEND_WITHOUT_REPORTS,
        tidings: { ...tidings, cpuUsPerRequest: tidingsCpu },
      });
      console.log(
        `sqlite ${SEND_WITHOUT_REPORTS} c=${row.connections}: ${int(tidings.requestsPerS)} req/s, p99 ${tidings.p99Ms} ms, CPU ${cpuText(tidingsCpu)} µs/req`,
      );
    }
  } finally {
    await server.stop();
    await fixture.dispose();
  }
}

async function benchDatabase(database: Database): Promise<void> {
  const fixture = await createFixture(database);
  const nodeArgs = CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", CPU_PROF] : [];
  const timing = SQL_TIMING !== undefined && database === "sqlite" ? sqlTiming(SQL_TIMING) : null;
  const server = await startTidings(
    { ...fixture.env, TIDINGS_SQLITE_SYNCHRONOUS: SYNCHRONOUS, ...timing?.env },
    [...nodeArgs, ...(timing?.nodeArgs ?? [])],
  );
  // The same send limit Tidings serves with here (lifted: BENCH_ENV).
  const peerServer =
    database === "sqlite"
      ? await startPeerServer({
          template: OTP_TEMPLATE,
          rateLimit: 9_999_999,
          rateWindowMs: 1000,
          synchronous: SYNCHRONOUS,
        })
      : null;
  try {
    const ids = await seedProfiles(server.url, fixture.token, 0, SEEDED);
    const context: Context = { ids, campaignId: fixture.campaignId };
    const peer =
      peerServer === null
        ? null
        : {
            server: peerServer,
            context: {
              ids: await seedProfiles(peerServer.url, peerServer.token, 0, SEEDED),
              campaignId: peerServer.campaignId,
            },
          };
    const headers = { authorization: `Bearer ${fixture.token}` };
    const seeded = server.takePeakRssMiB().mib;
    const byEndpoint: PeakRss["byEndpoint"] = [];
    for (const endpoint of ENDPOINTS) {
      const reply = await sampleReply(server.url, fixture.token, endpoint.requests(context)());
      for (const connections of CONNECTIONS) {
        await measureBare(endpoint.name, connections, reply, endpoint.requests(context));
        const { tidings, tidingsCpu, databaseCpu } = await measureTidings(
          server,
          database,
          endpoint,
          context,
          headers,
          connections,
        );
        const bare = bareResults.get(`${endpoint.name}@${connections}`)!;
        const peerResult =
          peer !== null && PEER_ENDPOINTS.includes(endpoint.name)
            ? await measurePeer(peer, endpoint, connections)
            : null;
        rows.push({
          endpoint: endpoint.name,
          database,
          connections,
          tidings: { ...tidings, cpuUsPerRequest: tidingsCpu },
          databaseCpuUsPerRequest: databaseCpu,
          bare,
          peer: peerResult,
        });
        console.log(
          `${database} ${endpoint.name} c=${connections}: ${int(tidings.requestsPerS)} req/s (peer ${peerResult === null ? "–" : int(peerResult.requestsPerS)}, bare ${int(bare.requestsPerS)}), p50 ${tidings.p50Ms} ms, p99 ${tidings.p99Ms} ms, CPU ${cpuText(tidingsCpu)} µs/req (peer ${cpuText(peerResult?.cpuUsPerRequest ?? null)}${databaseCpu === null ? "" : `, PostgreSQL ${cpuText(databaseCpu)}`}), failures ${tidings.failures} ${JSON.stringify(tidings.statusCodes)}`,
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
  } finally {
    await peerServer?.stop();
    await server.stop();
    await fixture.dispose();
  }
  const sends = rows.filter((r) => r.database === database && r.endpoint === SEND && r.peer);
  if (sends.length > 0) await measureSendsWithoutReports(sends);
}

/**
 * Where each server's peak RSS comes from: its high-water mark while each endpoint's runs (both
 * numbers of connections, warm-ups included) lasted, the kernel's mark reset in between.
 */
function peakRssLine(): string {
  const perDatabase = peakRss.map(
    ({ database, byEndpoint }) =>
      `${database === "sqlite" ? "SQLite" : "PostgreSQL"}: ${byEndpoint
        .map(
          ({ endpoint, mib, sinceStart }) =>
            `\`${endpoint}\` ${mibText(mib)}${sinceStart ? " (since the server started)" : ""}`,
        )
        .join(", ")}`,
  );
  return `Peak RSS of \`tidings serve\` while each endpoint's runs lasted (both numbers of connections and their warm-ups; the kernel's high-water mark is set back to the RSS of the moment between endpoints, through \`/proc/PID/clear_refs\`, so an endpoint's figure is at least what the endpoint before it left; the target below takes the highest, seeding included). ${perDatabase.join(". ")}.`;
}

function report(): string {
  const body = table(
    [
      "Endpoint",
      "DB",
      "Conns",
      "req/s",
      "peer req/s",
      "vs peer",
      "bare req/s",
      "vs bare",
      "p50 ms",
      "p99 ms",
      "CPU µs/req",
      "PostgreSQL CPU µs/req",
      "peer CPU µs/req",
      "bare p50/p99 ms",
      "non-2xx+errors",
    ],
    rows.map((r) => [
      `\`${r.endpoint}\``,
      r.database === "sqlite" ? "SQLite" : "PostgreSQL",
      r.connections,
      int(r.tidings.requestsPerS),
      r.peer === null ? "" : int(r.peer.requestsPerS),
      r.peer === null ? "" : `${fixed(r.tidings.requestsPerS / r.peer.requestsPerS, 2)}×`,
      int(r.bare.requestsPerS),
      percent(r.tidings.requestsPerS / r.bare.requestsPerS),
      r.tidings.p50Ms,
      r.tidings.p99Ms,
      cpuText(r.tidings.cpuUsPerRequest),
      r.database === "sqlite" ? "" : cpuText(r.databaseCpuUsPerRequest),
      r.peer === null ? "" : cpuText(r.peer.cpuUsPerRequest),
      `${r.bare.p50Ms} / ${r.bare.p99Ms}`,
      r.tidings.failures,
    ]),
  );
  const find = (endpoint: string, connections: number) =>
    rows.find(
      (r) => r.database === "sqlite" && r.endpoint === endpoint && r.connections === connections,
    );
  const targets: Array<[string, string, boolean | null]> = [];
  for (const [endpoint, share] of [
    ["POST /v1/profiles", 0.4],
    [SEND, 0.3],
  ] as const) {
    for (const connections of CONNECTIONS) {
      const row = find(endpoint, connections);
      const ratio = row ? row.tidings.requestsPerS / row.bare.requestsPerS : null;
      targets.push([
        `\`${endpoint}\` ≥ ${percent(share)} of bare, ${connections} conns`,
        ratio === null ? "not run" : percent(ratio),
        ratio === null ? null : ratio >= share,
      ]);
    }
  }
  for (const endpoint of ["POST /v1/profiles", SEND]) {
    const row = find(endpoint, 50);
    const ratio = row?.peer ? row.tidings.requestsPerS / row.peer.requestsPerS : null;
    targets.push([
      `\`${endpoint}\` ≥ 1.5× the straightforward server, 50 conns`,
      ratio === null ? "not run" : `${fixed(ratio, 2)}×`,
      ratio === null ? null : ratio >= 1.5,
    ]);
  }
  const byId = find("GET /v1/profiles/{id}", 50);
  const byIdShare = byId ? byId.tidings.requestsPerS / byId.bare.requestsPerS : null;
  targets.push([
    "`GET /v1/profiles/{id}` ≥ 50% of bare, 50 conns",
    byIdShare === null ? "not run" : percent(byIdShare),
    byIdShare === null ? null : byIdShare >= 0.5,
  ]);
  for (const endpoint of ["POST /v1/profiles", SEND]) {
    const onSqlite = find(endpoint, 50);
    const onPostgres = rows.find(
      (r) => r.database === "postgres" && r.endpoint === endpoint && r.connections === 50,
    );
    const ratio =
      onSqlite && onPostgres
        ? onPostgres.tidings.requestsPerS / onSqlite.tidings.requestsPerS
        : null;
    targets.push([
      `\`${endpoint}\` on PostgreSQL ≥ 0.7× SQLite, 50 conns`,
      ratio === null ? "not run" : `${fixed(ratio, 2)}×`,
      ratio === null ? null : ratio >= 0.7,
    ]);
  }
  const p99Rows = rows.filter(
    (r) => r.database === "sqlite" && r.connections === 50 && r.endpoint !== SEND_WITHOUT_REPORTS,
  );
  for (const row of p99Rows) {
    targets.push([
      `\`${row.endpoint}\` p99 < 25 ms at 50 conns`,
      `${row.tidings.p99Ms} ms`,
      row.tidings.p99Ms < 25,
    ]);
  }
  for (const { database, mib } of peakRss) {
    targets.push([
      `peak RSS of \`tidings serve\` (${database}) < 200 MB`,
      mib === null ? "n/a" : `${fixed(mib)} MiB`,
      mib === null ? null : mib * 1.048576 < 200,
    ]);
  }
  return [
    "## HTTP throughput",
    "",
    machineLine(describeMachine(), "pnpm --filter @tidings/bench http"),
    "",
    `autocannon in the bench process, ${DURATION_S} s per run after a ${WARMUP_S} s warm-up, against \`tidings serve\` (built \`dist/bin.js\`, its own process, \`TIDINGS_LOG_LEVEL=warn\`, \`NODE_ENV=production\`, send limit lifted to \`9999999/1s\`) and, in the same run, a bare node:http server in its own process answering Tidings' own JSON for that request, and (SQLite, three endpoints) the straightforward server of \`bench/src/harness/peer-server-main.ts\`: what a competent engineer writes in an afternoon on the same libraries (one node:http handler per route, better-sqlite3 in WAL with synchronous NORMAL and one statement or transaction per request, libphonenumber-js/max, valibot, a SHA-256 key lookup per request, a message and an event row per send, the rate limit counted from a hits table), in its own process with its own 1000 seeded profiles. ${SEEDED} profiles seeded through the API first; lookups rotate over them; every \`POST /v1/profiles\` carries a new phone number; sends are Viber OTP (\`${"{{brand}}"}\`, \`${"{{pin}}"}\`) to the seeded numbers through the sandbox provider. PostgreSQL runs in its own schema of the local server. "CPU µs/req" is the server process's CPU time (user plus system, from \`/proc/PID/stat\`) over the measured run divided by the requests it answered; for sends Tidings' figure also takes in the 2.5 s after the run in which the sandbox's delivered and seen reports of those sends land (two more writes each, which the peer does not have), and the warm-up's reports land before the run starts (not on the line \`${SEND_WITHOUT_REPORTS}\` below: nothing is reported there, so it is measured over the run alone, as the peer is). It holds up on a busy machine far better than req/s. It is the Node process's alone. On PostgreSQL the database's own CPU is the next column: every local process named \`postgres\` (its backends, WAL writer and the rest, from \`/proc\`) over the same span, per request. A PostgreSQL row's two figures together compare with a SQLite row's one, where the database runs inside the process. The line \`${SEND_WITHOUT_REPORTS}\` makes the same sends again, at each number of connections, to a second SQLite server whose sandbox reports a day later (\`TIDINGS_SANDBOX_DELAY_MS=${REPORTS_HELD_BACK_MS}\`), so Tidings writes what the peer writes (the message, its event, the rate-limit hit) and no report; it sits beside the peer's sends of the same run and counts for no target.`,
    "",
    body,
    "",
    peakRssLine(),
    "",
    "### Targets (ratios from the same run)",
    "",
    table(
      ["Target", "Measured", "Verdict"],
      targets.map(([name, measured, met]) => [name, measured, met === null ? "n/a" : verdict(met)]),
    ),
  ].join("\n");
}

for (const database of DATABASES) await benchDatabase(database);
// A partial or profiled run prints its figures but leaves RESULTS.md to the full run.
const partial =
  ONLY !== undefined ||
  process.env.BENCH_DB !== undefined ||
  CPU_PROF !== undefined ||
  SQL_TIMING !== undefined ||
  SYNCHRONOUS === "full";
if (!partial) writeSection("http", report());
console.log(report());
