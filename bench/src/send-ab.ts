// Sends' CPU cost of two or more builds of `tidings serve`, measured in alternating rounds so
// that a machine whose speed drifts (a shared virtual machine) weighs on each build alike. Each
// build runs its own server on SQLite or PostgreSQL (`BENCH_DB`, default sqlite) with the abuse
// limits on, the suppressions seeded and the sandbox's reports held back, as the `http`
// benchmark's held-back line does; a round is `BENCH_ROUND_S` seconds (default 5) of sends at
// `BENCH_CONNECTIONS` (default 50), one build after another, `BENCH_ROUNDS` times (default 6).
// Prints each build's CPU µs per send (median and range of its rounds) and sends a second: the
// server process's CPU only (on PostgreSQL, the database's own is not in it). Each build's
// counters fill as its rounds go on, alike for every build only when they send alike.
// `BENCH_PIN=1` keeps the load and the servers on CPUs of their own. `BENCH_CPU_PROF=DIR` profiles each server into DIR. Writes no results: it is a tool for deciding a change, not a figure to keep.
// Run: pnpm --filter @tidings/bench exec tsx src/send-ab.ts [BIN ...]
//   where each BIN is a build's packages/server/dist/bin.js (default: this checkout's).
import { execFileSync } from "node:child_process";
import { seedSuppressions, turnLimitsOn } from "./harness/abuse-protection.js";
import { seedProfiles } from "./harness/api.js";
import { endpointsNamed } from "./harness/endpoints.js";
import { createFixture, type Database, type Fixture } from "./harness/fixture.js";
import { runLoad } from "./harness/load.js";
import { cpuMs } from "./harness/machine.js";
import { startTidings, TIDINGS_BIN, type TidingsServer } from "./harness/tidings-process.js";

const DATABASE = (process.env.BENCH_DB ?? "sqlite") as Database;
const ROUND_S = Number(process.env.BENCH_ROUND_S ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SEEDED = 1000;
/**
 * `BENCH_PIN=1` (Linux, `taskset`): this process and its load on CPU 0, every server (all its
 * threads) on CPU 1, so the load generator does not share a CPU with the server it measures.
 */
const PIN = process.env.BENCH_PIN === "1";
if (PIN) execFileSync("taskset", ["-p", "-c", "0", String(process.pid)]);
/** `BENCH_CPU_PROF=DIR` writes a CPU profile of each server into DIR. */
const PROFILE_ARGS = process.env.BENCH_CPU_PROF
  ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF]
  : [];
const bins = process.argv.slice(2).length > 0 ? process.argv.slice(2) : [TIDINGS_BIN];

interface Build {
  bin: string;
  server: TidingsServer;
  dispose: () => Promise<void>;
  run: () => Promise<{ cpuUs: number; perS: number }>;
  rounds: Array<{ cpuUs: number; perS: number }>;
}

async function startBuild(bin: string): Promise<Build> {
  const fixture = await createFixture(DATABASE, undefined, bin);
  let server: TidingsServer | undefined;
  try {
    await turnLimitsOn(fixture, bin);
    server = await startTidings(
      { ...fixture.env, TIDINGS_SANDBOX_DELAY_MS: "86400000" },
      PROFILE_ARGS,
      bin,
    );
    return await ready(bin, fixture, server);
  } catch (error) {
    await server?.stop();
    await fixture.dispose();
    throw error;
  }
}

async function ready(bin: string, fixture: Fixture, server: TidingsServer): Promise<Build> {
  if (PIN) execFileSync("taskset", ["-a", "-p", "-c", "1", String(server.pid)]);
  const ids = await seedProfiles(server.url, fixture.token, 0, SEEDED);
  await seedSuppressions(server.url, fixture.token);
  const [endpoint] = endpointsNamed("POST /v1/messages/send");
  const next = endpoint!.requests({ ids, campaignId: fixture.campaignId });
  const headers = { authorization: `Bearer ${fixture.token}` };
  // Warm the JIT and the caches, unmeasured.
  await runLoad({ url: server.url, connections: CONNECTIONS, durationS: 2, headers, next });
  return {
    bin,
    server,
    rounds: [],
    dispose: async () => {
      await server.stop();
      await fixture.dispose();
    },
    async run() {
      const before = cpuMs(server.pid);
      const result = await runLoad({
        url: server.url,
        connections: CONNECTIONS,
        durationS: ROUND_S,
        headers,
        next,
      });
      const after = cpuMs(server.pid);
      if (result.failures > 0 || result.total === 0) {
        throw new Error(`${bin}: ${result.failures} of ${result.total} sends failed`);
      }
      const cpuUs =
        before === null || after === null ? Number.NaN : ((after - before) * 1000) / result.total;
      return { cpuUs, perS: result.requestsPerS };
    },
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const builds: Build[] = [];
try {
  for (const bin of bins) builds.push(await startBuild(bin));
  for (let round = 0; round < ROUNDS; round += 1) {
    // Each round starts with a different build, so none is always first after a pause.
    for (let i = 0; i < builds.length; i += 1) {
      const build = builds[(round + i) % builds.length]!;
      const measured = await build.run();
      build.rounds.push(measured);
      if (process.env.BENCH_VERBOSE === "1") {
        console.log(
          `round ${round} ${build.bin}: ${measured.cpuUs.toFixed(0)} µs, ${measured.perS.toFixed(0)}/s`,
        );
      }
    }
  }
  for (const build of builds) {
    const cpu = build.rounds.map((r) => r.cpuUs);
    const perS = build.rounds.map((r) => r.perS);
    console.log(
      `${build.bin}\n  CPU µs/send median ${median(cpu).toFixed(0)} (${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)}), sends/s median ${median(perS).toFixed(0)} (${Math.min(...perS).toFixed(0)}–${Math.max(...perS).toFixed(0)})`,
    );
  }
} finally {
  for (const build of builds) await build.dispose();
}
