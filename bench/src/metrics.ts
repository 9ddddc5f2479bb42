// The cost of observability: three `tidings serve` processes, each on its own SQLite database,
// one with Prometheus metrics on (scraped as each run starts and every 15 s after, as Prometheus
// commonly does) and two with TIDINGS_METRICS=0, loaded at the same time with the same requests.
// On a machine shared with other work, loading them at once lets the noise hit all alike; the
// second server without metrics (the control) shows how far two identical servers measure apart.
// Run: pnpm --filter @tidings/bench metrics   (BENCH_DURATION_S, BENCH_ROUNDS, BENCH_ONLY,
// BENCH_SCRAPE_S: seconds between scrapes, 0 for none)

import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { request } from "undici";
import { seedProfiles } from "./harness/api.js";
import { type Endpoint, endpointsNamed, SEEDED } from "./harness/endpoints.js";
import { createFixture, type Fixture } from "./harness/fixture.js";
import { durationS, type LoadResult, runLoad } from "./harness/load.js";
import { describeMachine, machineLine } from "./harness/machine.js";
import { fixed, int, table, verdict } from "./harness/markdown.js";
import { writeSection } from "./harness/results.js";
import { startTidings, type TidingsServer } from "./harness/tidings-process.js";

const DURATION_S = durationS(10);
const WARMUP_S = Math.min(Number(process.env.BENCH_WARMUP_S ?? 1), DURATION_S);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const CONNECTIONS = 10;
const SCRAPE_S = Number(process.env.BENCH_SCRAPE_S ?? 15);
const ONLY = process.env.BENCH_ONLY;
/** The most throughput metrics may cost (issue 20). */
const TARGET_COST = 0.05;

/** The cheapest authenticated request (where a per-request cost shows most), and a send. */
const ENDPOINTS = endpointsNamed(ONLY ?? "GET /v1/profiles/{id},POST /v1/messages/send");

/** `off` is the baseline; `control` is a second server just like it. */
type Mode = "off" | "control" | "on";
const MODES: readonly Mode[] = ["off", "control", "on"];

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS = 100;

/** CPU seconds a process has used so far (user + system), from /proc/PID/stat. */
function cpuSeconds(pid: number): number {
  // The command name (field 2) is in parentheses and may hold spaces: split after it.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** One server's run: its load result and the CPU time it used per request, in µs. */
interface Measured {
  load: LoadResult;
  cpuUsPerRequest: number;
}

/** Scrapes `/metrics` every `SCRAPE_S` seconds until stopped, as Prometheus would. */
function scrapeRegularly(url: string): { stop(): Promise<number> } {
  let scrapes = 0;
  let running = true;
  const loop = (async () => {
    while (running && SCRAPE_S > 0) {
      const answer = await request(`${url}/metrics`);
      await answer.body.dump();
      if (answer.statusCode === 200) scrapes += 1;
      await new Promise((resolve) => setTimeout(resolve, SCRAPE_S * 1000));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return scrapes;
    },
  };
}

/**
 * How much less the server with metrics answered than the two without (their mean) in the
 * same round; for `control`, how much less it answered than `off` (the noise).
 */
const throughputCost = (round: Record<Mode, Measured>, mode: "on" | "control") => {
  const rate = (m: Mode) => round[m].load.requestsPerS;
  const baseline = mode === "on" ? (rate("off") + rate("control")) / 2 : rate("off");
  return 1 - rate(mode) / baseline;
};
/** The same for the CPU time used per request: how much more. */
const cpuCost = (round: Record<Mode, Measured>, mode: "on" | "control") => {
  const cpu = (m: Mode) => round[m].cpuUsPerRequest;
  const baseline = mode === "on" ? (cpu("off") + cpu("control")) / 2 : cpu("off");
  return cpu(mode) / baseline - 1;
};
const signedPercent = (ratio: number) => `${ratio > 0 ? "+" : ""}${fixed(ratio * 100)}%`;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Loads the servers at once with the same requests; the `on` one is scraped meanwhile. */
async function measureRound(
  servers: Record<Mode, Served>,
  endpoint: Endpoint,
  round: number,
): Promise<Record<Mode, Measured>> {
  // Who starts first gains a little; each round starts another one first.
  const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
  const load = (mode: Mode, durationS: number) => {
    const { server, fixture, ids } = servers[mode];
    return runLoad({
      url: server.url,
      connections: CONNECTIONS,
      durationS,
      headers: { authorization: `Bearer ${fixture.token}` },
      next: endpoint.requests({ ids, campaignId: fixture.campaignId }),
    });
  };
  await Promise.all(order.map((mode) => load(mode, WARMUP_S)));
  const cpuBefore = order.map((mode) => cpuSeconds(servers[mode].server.pid));
  const scraper = scrapeRegularly(servers.on.server.url);
  const loads = await Promise.all(order.map((mode) => load(mode, DURATION_S)));
  await scraper.stop();
  const measured = order.map((mode, i) => {
    const cpu = cpuSeconds(servers[mode].server.pid) - cpuBefore[i]!;
    return [mode, { load: loads[i]!, cpuUsPerRequest: (cpu * 1e6) / loads[i]!.total }] as const;
  });
  return Object.fromEntries(measured) as Record<Mode, Measured>;
}

interface Served {
  server: TidingsServer;
  fixture: Fixture;
  ids: string[];
}

async function serve(metrics: "0" | "1"): Promise<Served> {
  const fixture = await createFixture("sqlite");
  const server = await startTidings({ ...fixture.env, TIDINGS_METRICS: metrics });
  const ids = await seedProfiles(server.url, fixture.token, 0, SEEDED);
  return { server, fixture, ids };
}

const loadBefore = loadavg();
const servers: Record<Mode, Served> = {
  off: await serve("0"),
  control: await serve("0"),
  on: await serve("1"),
};
const runs: Array<{ endpoint: string; round: number; result: Record<Mode, Measured> }> = [];
try {
  for (const endpoint of ENDPOINTS) {
    for (let round = 0; round < ROUNDS; round += 1) {
      const result = await measureRound(servers, endpoint, round);
      runs.push({ endpoint: endpoint.name, round, result });
      const line = (m: Measured) =>
        `${int(m.load.requestsPerS)} req/s, ${fixed(m.cpuUsPerRequest)} µs CPU/request, p99 ${m.load.p99Ms} ms, failures ${m.load.failures}`;
      console.log(
        `${endpoint.name} round ${round + 1}: ${MODES.map((m) => `${m} ${line(result[m])}`).join("; ")}`,
      );
      // Let the sandbox's delivered/seen reports of the sends land before the next run.
      if (endpoint.name.includes("send")) await new Promise((r) => setTimeout(r, 2500));
    }
  }
} finally {
  for (const { server, fixture } of Object.values(servers)) {
    await server.stop();
    await fixture.dispose();
  }
}

const loadAfter = loadavg();
const rows = ENDPOINTS.map((endpoint) => {
  const rounds = runs.filter((run) => run.endpoint === endpoint.name).map((run) => run.result);
  const medianOf = (cost: typeof cpuCost, mode: "on" | "control") =>
    median(rounds.map((round) => cost(round, mode)));
  return {
    endpoint: endpoint.name,
    rounds,
    throughput: {
      on: medianOf(throughputCost, "on"),
      control: medianOf(throughputCost, "control"),
    },
    cpu: { on: medianOf(cpuCost, "on"), control: medianOf(cpuCost, "control") },
  };
});

const report = [
  "## Metrics on versus off",
  "",
  machineLine(describeMachine(), "pnpm --filter @tidings/bench metrics"),
  "",
  `Three \`tidings serve\` processes (built \`dist/bin.js\`, \`TIDINGS_LOG_LEVEL=warn\`, send limit lifted), each on its own SQLite database with ${SEEDED} profiles: *on* with the Prometheus metrics on, its \`/metrics\` scraped as each run starts and every ${SCRAPE_S} s after (a common Prometheus interval); *off* and *control* with \`TIDINGS_METRICS=0\`. No OpenTelemetry SDK in any (tracing off, as by default). Each round loads all three at the same time with the same requests (autocannon in the bench process, ${CONNECTIONS} connections each, ${DURATION_S} s after a ${WARMUP_S} s warm-up), so other work on the machine slows them alike; they share the cores, so each gets about a third of a lone server's throughput. Each round starts the three in a different order, since the first started gains a little. Two costs per round for *on*, against the mean of *off* and *control*: throughput (1 − req/s ÷ their req/s) and CPU per request (µs ÷ their µs − 1, from each process's user + system time in /proc). *control* is built exactly like *off*, so its figures against *off* are the noise floor of the round. The verdicts take the median of ${ROUNDS} rounds. Load average (1, 5, 15 min) before: ${loadBefore.map((n) => fixed(n, 2)).join(", ")}; after: ${loadAfter.map((n) => fixed(n, 2)).join(", ")}, on ${describeMachine().cores} cores shared with other engineers' test runs.`,
  "",
  table(
    [
      "Endpoint",
      "round",
      "off / control / on req/s",
      "off / control / on µs CPU/req",
      "on: throughput cost",
      "on: CPU cost",
      "control vs off: throughput / CPU",
    ],
    rows.flatMap((row) =>
      row.rounds.map((round, i) => [
        `\`${row.endpoint}\``,
        i + 1,
        MODES.map((m) => int(round[m].load.requestsPerS)).join(" / "),
        MODES.map((m) => fixed(round[m].cpuUsPerRequest)).join(" / "),
        signedPercent(throughputCost(round, "on")),
        signedPercent(cpuCost(round, "on")),
        `${signedPercent(throughputCost(round, "control"))} / ${signedPercent(cpuCost(round, "control"))}`,
      ]),
    ),
  ),
  "",
  "### Target (metrics cost under 5 % of throughput)",
  "",
  table(
    [
      "Endpoint",
      "on: throughput cost",
      "on: CPU per request",
      "control vs off (noise): throughput / CPU",
      "Verdict",
    ],
    rows.map((row) => [
      `\`${row.endpoint}\``,
      signedPercent(row.throughput.on),
      signedPercent(row.cpu.on),
      `${signedPercent(row.throughput.control)} / ${signedPercent(row.cpu.control)}`,
      verdict(row.throughput.on < TARGET_COST && row.cpu.on < TARGET_COST),
    ]),
  ),
].join("\n");

// A partial run prints its figures but leaves RESULTS.md to the full run.
const partial = ONLY !== undefined || process.env.BENCH_SCRAPE_S !== undefined;
if (!partial) writeSection("metrics", report);
console.log(report);
