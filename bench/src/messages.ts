// Messages: the operator's lookups (`GET /v1/messages?client_reference=` and
// `GET /v1/messages/{id}`) with 10,000 and with 1,000,000 messages stored; the p99 should not
// grow with the data, because each is an index range of one organization.
// Run: pnpm --filter @tidings/bench messages   (BENCH_DURATION_S, BENCH_MESSAGE_SIZES)
import { createFixture } from "./harness/fixture.js";
import { durationS, type LoadRequest, type LoadResult, runLoad } from "./harness/load.js";
import { describeMachine, machineLine } from "./harness/machine.js";
import { fixed, int, latencyBySize, table, verdict } from "./harness/markdown.js";
import { writeSection } from "./harness/results.js";
import { seedMessagesSql } from "./harness/seed-messages-sql.js";
import { startTidings } from "./harness/tidings-process.js";

const DURATION_S = durationS(5);
const CONNECTIONS = 10;
const SIZES = (process.env.BENCH_MESSAGE_SIZES ?? "10000,1000000").split(",").map(Number);

/** A pseudo-random number in [0, size), so lookups touch the whole table. */
const spread = (k: number, size: number) => (k * 2_654_435_761) % size;

interface Endpoint {
  name: string;
  requests(size: number, ids: string[], reference: (i: number) => string): () => LoadRequest;
}

const ENDPOINTS: Endpoint[] = [
  {
    name: "GET /v1/messages?client_reference=",
    requests: (size, _ids, reference) => {
      let k = 0;
      return () => ({
        method: "GET",
        path: `/v1/messages?client_reference=${reference(spread(++k, size))}`,
      });
    },
  },
  {
    name: "GET /v1/messages/{id}",
    requests: (_size, ids) => {
      let k = 0;
      return () => ({ method: "GET", path: `/v1/messages/${ids[spread(++k, ids.length)]}` });
    },
  },
];

interface Row {
  size: number;
  endpoint: string;
  result: LoadResult;
}
const rows: Row[] = [];
const seeding: Array<{ size: number; seconds: number }> = [];

for (const size of SIZES) {
  const fixture = await createFixture("sqlite");
  try {
    const seedStart = performance.now();
    const seeded = seedMessagesSql(fixture.sqlitePath!, fixture.orgId, fixture.campaignId, size);
    const seconds = (performance.now() - seedStart) / 1000;
    seeding.push({ size, seconds });
    console.log(`seeded ${int(size)} messages in ${fixed(seconds)} s`);
    const server = await startTidings(fixture.env);
    try {
      const headers = { authorization: `Bearer ${fixture.token}` };
      for (const endpoint of ENDPOINTS) {
        const next = endpoint.requests(size, seeded.ids, seeded.reference);
        await runLoad({ url: server.url, connections: CONNECTIONS, durationS: 1, headers, next });
        const result = await runLoad({
          url: server.url,
          connections: CONNECTIONS,
          durationS: DURATION_S,
          headers,
          next,
        });
        rows.push({ size, endpoint: endpoint.name, result });
        console.log(
          `${int(size)} ${endpoint.name}: ${int(result.requestsPerS)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, failures ${result.failures} ${JSON.stringify(result.statusCodes)}`,
        );
      }
    } finally {
      await server.stop();
    }
  } finally {
    await fixture.dispose();
  }
}

const [small, large] = [Math.min(...SIZES), Math.max(...SIZES)];
const pick = (size: number, endpoint: string) =>
  rows.find((r) => r.size === size && r.endpoint === endpoint)?.result;
const markdown = [
  "## Messages",
  "",
  machineLine(describeMachine(), "pnpm --filter @tidings/bench messages"),
  "",
  `SQLite, messages (each with its \`message.sent\` event) written straight into the database file in one transaction before \`tidings serve\` starts, all of one organization and campaign, each with its own \`client_reference\`; then autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per endpoint after a 1 s warm-up. Lookups pick messages spread over the whole table. A message answer carries its events.`,
  "",
  latencyBySize(
    SIZES,
    ENDPOINTS.map((e) => e.name),
    pick,
  ),
  "",
  table(
    ["Messages", "seeding s", "failures"],
    seeding.map((s) => [
      int(s.size),
      fixed(s.seconds),
      int(rows.filter((r) => r.size === s.size).reduce((n, r) => n + r.result.failures, 0)),
    ]),
  ),
  "",
  "### Targets",
  "",
  table(
    ["Target", "Measured", "Verdict"],
    ENDPOINTS.map((e) => {
      const a = pick(small, e.name);
      const b = pick(large, e.name);
      if (!a || !b) return [`\`${e.name}\``, "n/a", "n/a"];
      // autocannon's percentiles are whole milliseconds: 1 ms against 2 ms is no real growth.
      const met = b.p99Ms <= Math.max(1.5 * a.p99Ms, a.p99Ms + 1) && b.failures === 0;
      return [
        `\`${e.name}\` p99 at ${int(large)} within 1.5× of ${int(small)} (or within autocannon's 1 ms resolution)`,
        `${b.p99Ms} ms vs ${a.p99Ms} ms (×${fixed(b.p99Ms / Math.max(a.p99Ms, 1), 2)})`,
        verdict(met),
      ];
    }),
  ),
].join("\n");
writeSection("messages", markdown);
console.log(markdown);
