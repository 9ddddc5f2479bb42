// Scale: list, lookup and send latency with 10,000 and with 1,000,000 profiles stored (the
// figures should not grow with the data), and the peak RSS of `tidings serve` meanwhile.
// Run: pnpm --filter @tidings/bench scale   (BENCH_DURATION_S, BENCH_SCALE_SIZES=10000,1000000)
import { createFixture, otpSend } from "./harness/fixture.js";
import { durationS, type LoadRequest, type LoadResult, runLoad } from "./harness/load.js";
import { describeMachine, machineLine } from "./harness/machine.js";
import { fixed, int, latencyBySize, table, verdict } from "./harness/markdown.js";
import { phoneNumber } from "./harness/phones.js";
import { writeSection } from "./harness/results.js";
import { seedProfilesSql } from "./harness/seed-sql.js";
import { startTidings } from "./harness/tidings-process.js";

const DURATION_S = durationS(5);
const CONNECTIONS = 10;
const SIZES = (process.env.BENCH_SCALE_SIZES ?? "10000,1000000").split(",").map(Number);

/** A pseudo-random profile number in [0, size), so lookups touch the whole table. */
const spread = (k: number, size: number) => (k * 2_654_435_761) % size;

interface Endpoint {
  name: string;
  requests(size: number, sample: string[], campaignId: string): () => LoadRequest;
}

const ENDPOINTS: Endpoint[] = [
  {
    name: "GET /v1/profiles?limit=100 (first page)",
    requests: () => () => ({ method: "GET", path: "/v1/profiles?limit=100" }),
  },
  {
    name: "GET /v1/profiles?limit=100&cursor= (middle page)",
    requests: (size) => {
      const cursor = Buffer.from(String(Math.floor(size / 2))).toString("base64url");
      return () => ({ method: "GET", path: `/v1/profiles?limit=100&cursor=${cursor}` });
    },
  },
  {
    name: "GET /v1/profiles/{id}",
    requests: (_size, sample) => {
      let k = 0;
      return () => ({ method: "GET", path: `/v1/profiles/${sample[spread(++k, sample.length)]}` });
    },
  },
  {
    name: "GET /v1/profiles?phone_number=",
    requests: (size) => {
      let k = 0;
      return () => ({
        method: "GET",
        path: `/v1/profiles?phone_number=${encodeURIComponent(phoneNumber(spread(++k, size)))}`,
      });
    },
  },
  {
    name: "POST /v1/messages/send",
    requests: (size, _sample, campaignId) => {
      let k = 0;
      return () => {
        k += 1;
        return otpSend(campaignId, phoneNumber(spread(k, size)), k);
      };
    },
  },
];

interface Row {
  size: number;
  endpoint: string;
  result: LoadResult;
}
const rows: Row[] = [];
const rss: Array<{ size: number; mib: number | null; seedS: number }> = [];

for (const size of SIZES) {
  const fixture = await createFixture("sqlite");
  try {
    const seedStart = performance.now();
    const sample = seedProfilesSql(fixture.sqlitePath!, fixture.orgId, size);
    const seedS = (performance.now() - seedStart) / 1000;
    console.log(`seeded ${int(size)} profiles in ${fixed(seedS)} s`);
    const server = await startTidings(fixture.env);
    try {
      const headers = { authorization: `Bearer ${fixture.token}` };
      for (const endpoint of ENDPOINTS) {
        const next = endpoint.requests(size, sample, fixture.campaignId);
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
        if (endpoint.name.includes("send")) await new Promise((r) => setTimeout(r, 2500));
      }
      rss.push({ size, mib: server.peakRssMiB(), seedS });
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
const growth = ENDPOINTS.map((e) => {
  const a = pick(small, e.name);
  const b = pick(large, e.name);
  return {
    name: e.name,
    mean: a && b ? b.meanMs / a.meanMs : Number.NaN,
    rps: a && b ? a.requestsPerS / b.requestsPerS : Number.NaN,
  };
});
const lookups = growth.filter(
  (g) => g.name.startsWith("GET /v1/profiles/") || g.name.includes("phone_number"),
);
const markdown = [
  "## Scale",
  "",
  machineLine(describeMachine(), "pnpm --filter @tidings/bench scale"),
  "",
  `SQLite, profiles written straight into the database file in one transaction before \`tidings serve\` starts; then autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per endpoint after a 1 s warm-up. Lookups and sends pick profiles spread over the whole table; the middle page starts at the cursor of the middle row. Sends are Viber OTP through the sandbox provider.`,
  "",
  latencyBySize(
    SIZES,
    ENDPOINTS.map((e) => e.name),
    pick,
  ),
  "",
  table(
    ["Profiles", "seeding s", "peak RSS of `tidings serve` (MiB)"],
    rss.map((r) => [int(r.size), fixed(r.seedS), r.mib === null ? "n/a" : fixed(r.mib)]),
  ),
  "",
  "### Targets",
  "",
  table(
    ["Target", "Measured", "Verdict"],
    [
      ...lookups.map((g) => [
        `\`${g.name}\` at ${int(large)} within 1.5× of ${int(small)}`,
        `mean latency ×${fixed(g.mean, 2)}, req/s ÷${fixed(g.rps, 2)}`,
        verdict(g.mean <= 1.5 && g.rps <= 1.5),
      ]),
      ...rss.map((r) => [
        `peak RSS < 200 MB with ${int(r.size)} profiles`,
        r.mib === null ? "n/a" : `${fixed(r.mib * 1.048576)} MB`,
        r.mib === null ? "n/a" : verdict(r.mib * 1.048576 < 200),
      ]),
    ],
  ),
].join("\n");
writeSection("scale", markdown);
console.log(markdown);
