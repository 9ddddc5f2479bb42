// How long `pnpm --silent tidings --version` takes from a clone: the whole start-up of the CLI
// (pnpm, Node, loading the command), which every quickstart command pays before its own work.
// Compared, in the same run and interleaved so background load hits all alike: the CLI through
// scripts/tidings.mjs (the bundle it keeps), that script without pnpm, and a command that opens
// storage through the bundle and through tsx, as `pnpm tidings` ran the sources before.
// Run: pnpm --filter @tidings/bench cli   (BENCH_CLI_RUNS, default 5 warm runs of each)
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeMachine, machineLine } from "./harness/machine.js";
import { fixed, table, verdict } from "./harness/markdown.js";
import { writeSection } from "./harness/results.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RUNS = Math.max(1, Number(process.env.BENCH_CLI_RUNS ?? 5));
/** Issue 38: from a clone, the median of 5 warm runs under a second. */
const TARGET_S = 1;

const LAUNCHER = ["--silent", "tidings"];
const TSX = ["--silent", "exec", "tsx", "packages/server/src/bin.ts"];

/** What is timed: `--version`, which loads nothing else, and `orgs list`, which opens storage. */
const WAYS = [
  { name: "`pnpm --silent tidings --version`", file: "pnpm", args: [...LAUNCHER, "--version"] },
  { name: "`pnpm --version` (pnpm alone: the floor)", file: "pnpm", args: ["--version"] },
  {
    name: "`node scripts/tidings.mjs --version`",
    file: "node",
    args: ["scripts/tidings.mjs", "--version"],
  },
  { name: "`pnpm --silent tidings orgs list`", file: "pnpm", args: [...LAUNCHER, "orgs", "list"] },
  {
    name: "`orgs list` through tsx, as `pnpm tidings` ran it before",
    file: "pnpm",
    args: [...TSX, "orgs", "list"],
  },
] as const;

const scratch = mkdtempSync(join(tmpdir(), "tidings-bench-cli-"));
const env = { ...process.env, TIDINGS_DATABASE_URL: `sqlite:${join(scratch, "tidings.db")}` };

/** Seconds one run takes, from spawning it to its exit. */
function timed(file: string, args: readonly string[]): number {
  const start = performance.now();
  execFileSync(file, [...args], { cwd: ROOT, env, stdio: "ignore" });
  return (performance.now() - start) / 1000;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

if (import.meta.url === `file://${process.argv[1]}`) {
  // Warm: the bundle is built and every file has been read once.
  for (const way of WAYS) timed(way.file, way.args);
  const times = WAYS.map(() => [] as number[]);
  const loadBefore = loadavg()[0] ?? 0;
  for (let run = 0; run < RUNS; run++) {
    for (const [i, way] of WAYS.entries()) times[i]?.push(timed(way.file, way.args));
  }
  const loadAfter = loadavg()[0] ?? 0;
  const medians = times.map(median);
  const launcher = medians[0] ?? Number.POSITIVE_INFINITY;
  const pnpmAlone = medians[1] ?? 0;
  const rows = WAYS.map((way, i) => [
    way.name,
    fixed(medians[i] ?? 0, 2),
    fixed(Math.min(...(times[i] ?? [])), 2),
    fixed(Math.max(...(times[i] ?? [])), 2),
  ]);
  const markdown = [
    "## CLI start-up",
    "",
    machineLine(describeMachine(), "pnpm --filter @tidings/bench cli"),
    "",
    `Seconds per call, ${RUNS} warm runs of each, interleaved; load average ${fixed(loadBefore, 2)} before, ${fixed(loadAfter, 2)} after.`,
    "",
    table(["command", "median s", "fastest s", "slowest s"], rows),
    "",
    `Target (issue 38): \`pnpm --silent tidings --version\` under ${TARGET_S} s, median of 5 warm runs: ${verdict(launcher < TARGET_S)} (${fixed(launcher, 2)} s), of which at least ${fixed(pnpmAlone, 2)} s is pnpm's own start-up (\`pnpm --version\`, the second row), which no change here can shorten. \`--version\` loads nothing but the version; a command such as \`orgs list\` loads the whole CLI, from the bundle in one file instead of some 400 modules compiled by tsx on every call.`,
  ].join("\n");
  rmSync(scratch, { recursive: true, force: true });
  writeSection("cli", markdown);
  console.log(markdown);
}
