// Webhook delivery throughput: the core's delivery engine (SQLite storage, undici transport)
// against a plain undici loop posting the same signed bodies to the same receiver, same run.
// Run: pnpm --filter @tidings/bench webhooks   (BENCH_WEBHOOK_EVENTS, BENCH_WEBHOOK_TIMEOUT_S)
import { createDeliveryEngine, webhookHeaders } from "@tidings/core";
import { request } from "undici";
import { describeMachine, machineLine } from "./harness/machine.js";
import { fixed, int, percent, table, verdict } from "./harness/markdown.js";
import { type Receiver, startReceiver } from "./harness/receiver.js";
import { writeSection } from "./harness/results.js";
import { BENCH_BACKOFF, openWebhookRig, type WebhookRig } from "./harness/webhook-rig.js";

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 50_000);
const TIMEOUT_S = Number(process.env.BENCH_WEBHOOK_TIMEOUT_S ?? 150);
const PACED_S = Number(process.env.BENCH_WEBHOOK_PACED_S ?? 5);
/** The engine's default attempts in flight per destination, matched by the plain loop. */
const PER_DESTINATION = Number(process.env.BENCH_WEBHOOK_PER_DESTINATION ?? 8);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  name: string;
  delivered: number;
  seconds: number;
  perS: number;
  p50Ms: number;
  p99Ms: number;
  /** Failing receiver only: deliveries still owed when it recovered, and how long they took. */
  backlogAtRecovery?: number;
  drainS?: number;
  requests: number;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Waits until the receiver has `target` deliveries, or the timeout; calls `onTick` meanwhile. */
async function waitForReceipts(
  receiver: Receiver,
  target: number,
  onTick?: (c: { received: number; requests: number }) => void,
) {
  const deadline = now() + TIMEOUT_S * 1000;
  for (;;) {
    const count = await receiver.count();
    onTick?.(count);
    if (count.received >= target || now() > deadline) return count;
    await sleep(20);
  }
}

async function summarize(
  name: string,
  receiver: Receiver,
  start: number,
  eventAt: Map<string, number>,
  extra: Partial<Run> = {},
): Promise<Run> {
  const { receipts, requests } = await receiver.report();
  const latencies: number[] = [];
  let last = start;
  for (const [id, at] of receipts) {
    const event = eventAt.get(id);
    if (event === undefined) continue;
    latencies.push(at - event);
    last = Math.max(last, at);
  }
  const seconds = (last - start) / 1000;
  const run: Run = {
    name,
    delivered: latencies.length,
    seconds,
    perS: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    requests,
    ...extra,
  };
  console.log(
    `${name}: ${int(run.delivered)} in ${fixed(seconds, 2)} s = ${int(run.perS)}/s, p50 ${fixed(run.p50Ms)} ms, p99 ${fixed(run.p99Ms)} ms ${extra.drainS === undefined ? "" : `backlog ${extra.backlogAtRecovery}, drain ${fixed(extra.drainS, 2)} s`}`,
  );
  return run;
}

/**
 * The baseline: `concurrency` workers take bodies from a queue, sign them as the engine does and
 * POST them with undici; a non-2xx answer goes to the back of the queue (at once, no schedule).
 */
function plainLoop(rig: WebhookRig, url: string, concurrency: number) {
  const queue: Array<{ id: string; payload: string; attempt: number }> = [];
  const waiters: Array<() => void> = [];
  let closed = false;
  const push = (item: { id: string; payload: string; attempt: number }) => {
    queue.push(item);
    waiters.shift()?.();
  };
  const worker = async () => {
    for (;;) {
      const item = queue.shift();
      if (item === undefined) {
        if (closed) return;
        await new Promise<void>((r) => waiters.push(r));
        continue;
      }
      const headers = webhookHeaders({
        secret: rig.secret,
        timestamp: Math.floor(Date.now() / 1000),
        body: item.payload,
        topic: "message.delivered",
        deliveryId: item.id,
        attempt: item.attempt,
      });
      const answer = await request(url, { method: "POST", headers, body: item.payload });
      await answer.body.dump();
      if (answer.statusCode < 200 || answer.statusCode >= 300)
        push({ ...item, attempt: item.attempt + 1 });
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  return {
    push,
    async close() {
      closed = true;
      for (const w of waiters.splice(0)) w();
      await Promise.all(workers);
    },
  };
}

async function backlogPlain(
  rig: WebhookRig,
  receiver: Receiver,
  concurrency: number,
  failing: boolean,
): Promise<Run> {
  receiver.reset();
  receiver.setMode(failing ? "half" : "ok");
  const bodies = rig.bodies(EVENTS);
  const eventAt = new Map<string, number>();
  const start = now();
  const loop = plainLoop(rig, receiver.url, concurrency);
  for (const b of bodies) {
    eventAt.set(b.id, start);
    loop.push({ ...b, attempt: 0 });
  }
  const recovery = await recover(receiver, failing);
  await loop.close();
  const name = `plain undici loop, ${concurrency} in flight${failing ? ", receiver fails half" : ""}`;
  return summarize(name, receiver, start, eventAt, recovery);
}

/** With a failing receiver: once it has seen EVENTS requests it recovers; the backlog then. */
async function recover(receiver: Receiver, failing: boolean): Promise<Partial<Run>> {
  if (!failing) {
    await waitForReceipts(receiver, EVENTS);
    return {};
  }
  let recoveredAt = 0;
  let backlog = 0;
  const count = await waitForReceipts(receiver, EVENTS, (c) => {
    if (recoveredAt === 0 && c.requests >= EVENTS) {
      receiver.setMode("ok");
      recoveredAt = now();
      backlog = EVENTS - c.received;
    }
  });
  return {
    backlogAtRecovery: backlog,
    drainS: recoveredAt === 0 ? Number.NaN : (now() - recoveredAt) / 1000,
    delivered: count.received,
  };
}

async function backlogEngine(
  rig: WebhookRig,
  receiver: Receiver,
  failing: boolean,
  on = "",
): Promise<Run> {
  receiver.reset();
  receiver.setMode(failing ? "half" : "ok");
  const ids = await rig.queue(EVENTS);
  const eventAt = new Map<string, number>();
  const start = now();
  for (const id of ids) eventAt.set(id, start);
  const engine = createDeliveryEngine(rig.deps);
  engine.start();
  const recovery = await recover(receiver, failing);
  await engine.stop();
  await rig.cancelPending();
  const name = `delivery engine${on} (defaults: 64 in flight, ${PER_DESTINATION} per destination)${failing ? ", receiver fails half" : ""}`;
  return summarize(name, receiver, start, eventAt, recovery);
}

/** Events arriving at `rate` per second for PACED_S seconds; latency from event to receipt. */
async function pacedEngine(rig: WebhookRig, receiver: Receiver, rate: number): Promise<Run> {
  receiver.reset();
  receiver.setMode("ok");
  const engine = createDeliveryEngine(rig.deps);
  engine.start();
  const eventAt = new Map<string, number>();
  const total = Math.round(rate * PACED_S);
  const start = now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((now() - start) / 1000) * rate) + 1);
    if (due > sent) {
      const at = now();
      // As the server does: queue the delivery, then wake the engine.
      for (const id of await rig.queue(due - sent)) eventAt.set(id, at);
      engine.wake();
      sent = due;
    }
    await sleep(5);
  }
  await waitForReceipts(receiver, total);
  await engine.stop();
  await rig.cancelPending();
  return summarize(`delivery engine, events arriving at ${int(rate)}/s`, receiver, start, eventAt);
}

async function pacedPlain(
  rig: WebhookRig,
  receiver: Receiver,
  rate: number,
  concurrency: number,
): Promise<Run> {
  receiver.reset();
  receiver.setMode("ok");
  const loop = plainLoop(rig, receiver.url, concurrency);
  const eventAt = new Map<string, number>();
  const total = Math.round(rate * PACED_S);
  const bodies = rig.bodies(total);
  const start = now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((now() - start) / 1000) * rate) + 1);
    for (; sent < due; sent++) {
      eventAt.set(bodies[sent]!.id, now());
      loop.push({ ...bodies[sent]!, attempt: 0 });
    }
    await sleep(5);
  }
  await waitForReceipts(receiver, total);
  await loop.close();
  return summarize(
    `plain undici loop, ${concurrency} in flight, events arriving at ${int(rate)}/s`,
    receiver,
    start,
    eventAt,
  );
}

const receiver = await startReceiver();
const rig = await openWebhookRig(receiver.url);
try {
  // Warm both paths (JIT, connections) before anything is measured.
  await rig.queue(1000);
  const warm = createDeliveryEngine(rig.deps);
  while ((await warm.runOnce()) > 0);
  const warmLoop = plainLoop(rig, receiver.url, PER_DESTINATION);
  for (const b of rig.bodies(1000)) warmLoop.push({ ...b, attempt: 0 });
  await warmLoop.close();
  const runs: Run[] = [];
  const plainSame = await backlogPlain(rig, receiver, PER_DESTINATION, false);
  const plain16 = await backlogPlain(rig, receiver, 16, false);
  const engine = await backlogEngine(rig, receiver, false);
  runs.push(plainSame, plain16, engine);
  const rate = Math.max(50, Math.round(Math.min(engine.perS, plainSame.perS) / 2 / 50) * 50);
  runs.push(
    await pacedPlain(rig, receiver, rate, PER_DESTINATION),
    await pacedEngine(rig, receiver, rate),
  );
  const failPlain = await backlogPlain(rig, receiver, PER_DESTINATION, true);
  const failEngine = await backlogEngine(rig, receiver, true);
  runs.push(failPlain, failEngine);
  // The same backlog through PostgreSQL: one process, as `tidings serve` opens it.
  const pgRig = await openWebhookRig(receiver.url, "postgres");
  try {
    await pgRig.queue(1000);
    const warmPg = createDeliveryEngine(pgRig.deps);
    while ((await warmPg.runOnce()) > 0);
    runs.push(await backlogEngine(pgRig, receiver, false, " on PostgreSQL"));
  } finally {
    await pgRig.close();
  }

  const ratio = engine.perS / plainSame.perS;
  const markdown = [
    "## Webhook delivery",
    "",
    machineLine(describeMachine(), "pnpm --filter @tidings/bench webhooks"),
    "",
    `${int(EVENTS)} \`message.delivered\` events queued at once to one subscription whose receiver (a node:http server in its own process) answers at once; the delivery engine of the built \`@tidings/core\` with its defaults, on SQLite (\`@tidings/adapter-sqlite\`, a file in the temporary directory; the last run on PostgreSQL instead, its own schema of the benchmarks' server, through a pool with named statements as \`tidings serve\` opens it) with the undici transport of \`@tidings/adapter-http\`; beside it a plain undici loop signing and posting the same bodies. "Event → receipt" runs from the moment the events were queued (all at once for a backlog) to the moment the receiver read the request. The paced runs queue events steadily at half the slower backlog rate for ${PACED_S} s, waking the engine after each as the server does. The failing receiver answers 500 to every other request until it has seen ${int(EVENTS)} requests, then 200; the engine retries on a shortened schedule (${BENCH_BACKOFF.webhookBackoffBaseMs / 1000} s, then ${BENCH_BACKOFF.webhookBackoffCapMs / 1000} s; production starts at 30 s), the plain loop retries at once. Each run stops after ${TIMEOUT_S} s at most.`,
    "",
    table(
      [
        "Run",
        "delivered",
        "seconds",
        "deliveries/s",
        "p50 event→receipt ms",
        "p99 event→receipt ms",
        "requests",
        "backlog at recovery",
        "drain after recovery s",
      ],
      runs.map((r) => [
        r.name,
        int(r.delivered),
        fixed(r.seconds, 2),
        int(r.perS),
        fixed(r.p50Ms, 1),
        fixed(r.p99Ms, 1),
        int(r.requests),
        r.backlogAtRecovery === undefined ? "" : int(r.backlogAtRecovery),
        r.drainS === undefined ? "" : fixed(r.drainS, 2),
      ]),
    ),
    "",
    "### Target",
    "",
    table(
      ["Target", "Measured", "Verdict"],
      [
        [
          `engine ≥ 75% of the plain loop with as many in flight to the receiver (${PER_DESTINATION})`,
          percent(ratio),
          verdict(ratio >= 0.75),
        ],
        [
          "engine ≥ 75% of the plain loop with 16 in flight",
          percent(engine.perS / plain16.perS),
          verdict(engine.perS / plain16.perS >= 0.75),
        ],
      ],
    ),
  ].join("\n");
  writeSection("webhooks", markdown);
  console.log(markdown);
} finally {
  await rig.close();
  await receiver.close();
}
