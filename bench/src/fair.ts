// Fair delivery: one organization floods 50 receivers that never answer while another sends to a
// healthy receiver; how late do the healthy receiver's deliveries start, and how soon do the
// dead receivers get their backlog once they answer again? Through the built `tidings serve`
// (SQLite), and `serve` plus two `tidings worker`s on PostgreSQL.
// Run: pnpm --filter @tidings/bench fair   (BENCH_FAIR_SECONDS, BENCH_FAIR_DATABASES=sqlite,postgres)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { request } from "undici";
import { createFixture, type Database, type Fixture } from "./harness/fixture.js";
import { describeMachine, machineLine } from "./harness/machine.js";
import { fixed, int, table, verdict } from "./harness/markdown.js";
import { writeSection } from "./harness/results.js";
import {
  startTidings,
  startTidingsWorker,
  type TidingsServer,
  type TidingsWorker,
  tidingsCli,
} from "./harness/tidings-process.js";

const SECONDS = Number(process.env.BENCH_FAIR_SECONDS ?? 40);
const DATABASES = (process.env.BENCH_FAIR_DATABASES ?? "sqlite,postgres").split(",") as Database[];
const DEAD = 50;
/** Organization B's sends a second, each to the next dead receiver. */
const FLOOD_PER_S = 20;
/** Organization A's sends a second, each with one delivery to the healthy receiver. */
const HEALTHY_PER_S = 5;
/** How long after the dead receivers recover the benchmark waits for their backlog. */
const RECOVERY_LIMIT_S = 120;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A loopback receiver: answers at once, or holds every request until it recovers. */
interface BenchReceiver {
  url: string;
  /** Message id → when its message.sent arrived (first time). */
  arrivals: Map<string, number>;
  /** Requests held open right now. */
  held(): number;
  /** When the first request that arrived after `recover()` was answered; `null` before. */
  firstAnsweredAfterRecovery: number | null;
  recover(): void;
  close(): Promise<void>;
}

async function startBenchReceiver(hold: boolean): Promise<BenchReceiver> {
  const waiting = new Set<ServerResponse>();
  let holding = hold;
  const receiver: BenchReceiver = {
    url: "",
    arrivals: new Map(),
    held: () => waiting.size,
    firstAnsweredAfterRecovery: null,
    recover() {
      holding = false;
      for (const res of waiting) answer(res);
      waiting.clear();
    },
    close: () => Promise.resolve(),
  };
  const answer = (res: ServerResponse) => {
    if (!res.destroyed) res.writeHead(200).end();
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          topic?: string;
          data?: { message_id?: string };
        };
        const id = body.data?.message_id;
        if (body.topic === "message.sent" && id !== undefined && !receiver.arrivals.has(id)) {
          receiver.arrivals.set(id, at);
        }
      } catch {
        // Not an event: counted as nothing.
      }
      if (holding) {
        waiting.add(res);
        res.on("close", () => waiting.delete(res));
        return;
      }
      // A request that arrives after recovery is the engine trying this receiver anew.
      if (hold && receiver.firstAnsweredAfterRecovery === null) {
        receiver.firstAnsweredAfterRecovery = at;
      }
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

async function api(base: string, token: string, path: string, body: unknown) {
  const answer = await request(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await answer.body.json()) as Record<string, unknown>;
  if (answer.statusCode >= 300)
    throw new Error(`${path}: ${answer.statusCode} ${JSON.stringify(json)}`);
  return json;
}

/** A second organization with its own key and active OTP campaign, made with the CLI. */
async function secondSender(fixture: Fixture) {
  const org = await tidingsCli<{ org_id: string }>(
    ["orgs", "create", "--name", "Flood"],
    fixture.env,
  );
  const key = await tidingsCli<{ token: string }>(
    ["keys", "create", "--org", org.org_id, "--scopes", "messages:send,webhooks:manage"],
    fixture.env,
  );
  const campaign = await tidingsCli<{ campaign_id: string }>(
    [
      ..."campaigns create --org".split(" "),
      org.org_id,
      ..."--name Flood --channel sms --category otp --sender Flood --active".split(" "),
      "--template",
      "Code {{pin}}",
    ],
    fixture.env,
  );
  return { token: key.token, campaignId: campaign.campaign_id };
}

interface FairRun {
  database: Database;
  processes: string;
  healthySent: number;
  healthyArrived: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  floodSent: number;
  maxHeldAtDead: number;
  /** Seconds from recovery until every dead receiver had a new request, answered. */
  allProbedS: number;
  /** Seconds from recovery until every flood message.sent had arrived. */
  drainedS: number;
}

async function run(database: Database): Promise<FairRun> {
  const fixture = await createFixture(database);
  const env = { ...fixture.env, TIDINGS_DEV: "1" };
  const healthy = await startBenchReceiver(false);
  const dead = await Promise.all(Array.from({ length: DEAD }, () => startBenchReceiver(true)));
  const server: TidingsServer = await startTidings(env);
  const workers: TidingsWorker[] =
    database === "postgres"
      ? await Promise.all([startTidingsWorker(env), startTidingsWorker(env)])
      : [];
  try {
    const flood = await secondSender(fixture);
    await api(server.url, fixture.token, "/v1/webhooks", {
      url: healthy.url,
      topics: ["message.sent"],
    });
    const sentAt = new Map<string, number>();
    const floodIds: string[] = [];
    let maxHeld = 0;
    const start = now();
    let healthyDue = 0;
    let floodDue = 0;
    let k = 0;
    // Both organizations send at their steady rates, in the same loop, for SECONDS.
    while (now() - start < SECONDS * 1000) {
      const elapsed = (now() - start) / 1000;
      const sends: Array<Promise<void>> = [];
      for (; floodDue < Math.floor(elapsed * FLOOD_PER_S); floodDue++) {
        const target = dead[floodDue % DEAD]!;
        sends.push(
          api(server.url, flood.token, "/v1/messages/send", {
            campaign_id: flood.campaignId,
            recipient: { type: "phone_number", value: "+14155550100" },
            params: { pin: "123456" },
            webhook_url: `${target.url}/${floodDue}`,
          }).then((answer) => {
            floodIds.push(String(answer.message_id));
          }),
        );
      }
      for (; healthyDue < Math.floor(elapsed * HEALTHY_PER_S); healthyDue++) {
        sends.push(
          api(server.url, fixture.token, "/v1/messages/send", {
            campaign_id: fixture.campaignId,
            recipient: { type: "phone_number", value: "+14155550101" },
            params: { brand: "Acme", pin: String(100_000 + k++) },
          }).then((answer) => {
            // Due when the send is answered: its delivery committed with it, due at once.
            sentAt.set(String(answer.message_id), now());
          }),
        );
      }
      await Promise.all(sends);
      maxHeld = Math.max(
        maxHeld,
        dead.reduce((sum, d) => sum + d.held(), 0),
      );
      await sleep(20);
    }
    // The last healthy deliveries: give them a moment.
    for (let i = 0; i < 100 && healthy.arrivals.size < sentAt.size; i++) await sleep(50);
    const latencies = [...sentAt].flatMap(([id, at]) => {
      const arrived = healthy.arrivals.get(id);
      return arrived === undefined ? [] : [Math.max(0, arrived - at)];
    });

    // The dead receivers answer again.
    const recoveredAt = now();
    for (const d of dead) d.recover();
    const floodArrived = () => floodIds.filter((id) => dead.some((d) => d.arrivals.has(id))).length;
    while (
      now() - recoveredAt < RECOVERY_LIMIT_S * 1000 &&
      (floodArrived() < floodIds.length || dead.some((d) => d.firstAnsweredAfterRecovery === null))
    ) {
      await sleep(100);
    }
    const probed = dead.map((d) => d.firstAnsweredAfterRecovery ?? Number.NaN);
    return {
      database,
      processes: database === "postgres" ? "serve + 2 workers" : "serve",
      healthySent: sentAt.size,
      healthyArrived: latencies.length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: percentile(latencies, 100),
      floodSent: floodIds.length,
      maxHeldAtDead: maxHeld,
      allProbedS: (Math.max(...probed) - recoveredAt) / 1000,
      drainedS: floodArrived() < floodIds.length ? Number.NaN : (now() - recoveredAt) / 1000,
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await server.stop();
    await Promise.all([healthy, ...dead].map((r) => r.close()));
    await fixture.dispose();
  }
}

const runs: FairRun[] = [];
const load = loadavg()[0] ?? Number.NaN;
for (const database of DATABASES) runs.push(await run(database));

const markdown = [
  "## Fair delivery: 50 dead receivers and a healthy one",
  "",
  `${machineLine(describeMachine(), "pnpm --filter @tidings/bench fair")} · load average ${fixed(load, 1)} when it started`,
  "",
  `For ${SECONDS} s, organization B sends ${FLOOD_PER_S} messages a second, each with its own \`webhook_url\` on the next of ${DEAD} receivers that accept the connection and never answer (so each attempt holds until the 15 s timeout); organization A sends ${HEALTHY_PER_S} a second to a subscription whose receiver answers at once. All receivers are node:http servers on loopback in the benchmark's process; the built \`tidings\` runs with its defaults (SANDBOX events included). "Late" is from the moment A's send was answered (its delivery committed, due at once) to the moment the healthy receiver read the request. Then the dead receivers recover (answer every request, held ones included): "all probed" is when the last of them received a new request (its circuit's probe, or the next attempt), "drained" when every message.sent of B's flood had arrived.`,
  "",
  table(
    [
      "database",
      "processes",
      "A sends",
      "A arrived",
      "late p50 ms",
      "late p99 ms",
      "late max ms",
      "B sends",
      "most held at dead receivers",
      "all probed after recovery s",
      "B drained after recovery s",
    ],
    runs.map((r) => [
      r.database,
      r.processes,
      int(r.healthySent),
      int(r.healthyArrived),
      fixed(r.p50Ms, 1),
      fixed(r.p99Ms, 1),
      fixed(r.maxMs, 1),
      int(r.floodSent),
      int(r.maxHeldAtDead),
      fixed(r.allProbedS, 1),
      fixed(r.drainedS, 1),
    ]),
  ),
  "",
  "### Targets",
  "",
  table(
    ["Target", "Measured", "Verdict"],
    runs.flatMap((r) => [
      [
        `${r.database}: a healthy destination's delivery starts within 1 s of being due (p99)`,
        `${fixed(r.p99Ms, 1)} ms`,
        verdict(r.p99Ms <= 1000 && r.healthyArrived === r.healthySent),
      ],
      [
        `${r.database}: recovered destinations back to full speed within a minute`,
        `${fixed(r.allProbedS, 1)} s to probe all, ${fixed(r.drainedS, 1)} s to drain`,
        verdict(r.allProbedS <= 60 && r.drainedS <= 60),
      ],
    ]),
  ),
].join("\n");
writeSection("fair", markdown);
console.log(markdown);
