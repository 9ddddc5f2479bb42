import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { DeliveryRecord, WebhookRequest, WebhookResponse } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { aDelivery, aUuid } from "../testing/contract/fixtures.js";
import { repeatUntilDone, within } from "../testing/deadlines.js";
import { type Answer, fakeTransport, status } from "../testing/fakes.js";
import { webhookWorld } from "../testing/webhook-kit.js";
import { createDeliveryEngine } from "./delivery-engine.js";
import { recordEvent } from "./outbox.js";
import { verifyWebhook } from "./signing.js";
import { rotateWebhookSecret } from "./subscriptions.js";
import { updateWebhook } from "./update-webhook.js";

const HOUR = 60 * 60 * 1000;

/** A header by case-insensitive name. */
const header = (request: WebhookRequest, name: string): string | undefined =>
  Object.entries(request.headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/** The signature docs/decisions.md "Signed bytes" prescribes, computed independently of signing.ts. */
const expectedSignature = (secret: string, request: WebhookRequest): string =>
  `sha256=${createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(`${header(request, "x-service-timestamp")}.${request.body}`)
    .digest("hex")}`;

/** A promise with its resolver, to hold a receiver's answer. */
function gate<T = void>() {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A world with one subscription to message.sent and one pending delivery to it. */
async function subscribedWorld(answer: Answer) {
  const transport = fakeTransport(answer);
  const w = await webhookWorld(transport);
  const webhook = await w.addWebhook();
  const message = await w.message();
  await w.storage.transaction((tx) => recordEvent(tx, w.deps, message, "message.sent", null));
  const [delivery] = await w.storage.raw.deliveries();
  if (!delivery) throw new Error("expected one delivery");
  const engine = createDeliveryEngine(w.deps, { owner: "engine-a", random: () => 0.5 });
  return { ...w, transport, webhook, message, delivery, engine };
}

/** Runs the engine at each due time until the delivery is no longer pending. */
async function runToEnd(w: Awaited<ReturnType<typeof subscribedWorld>>): Promise<DeliveryRecord> {
  for (let i = 0; i < 100; i++) {
    await w.engine.runOnce();
    const current = await w.storage.raw.delivery(w.delivery.id);
    if (current?.status !== "pending") return current as DeliveryRecord;
    w.clock.set(Date.parse(current.nextAttemptAt));
  }
  throw new Error("delivery never settled");
}

describe("the delivery engine (docs/decisions.md 'Delivery', 'Retries')", () => {
  it("retries keep the delivery id, count X-Service-Retry-Attempt up, and sign every attempt", async () => {
    const answers = [500, 503, 200];
    const w = await subscribedWorld(() => status(answers.shift() ?? 200));
    const final = await runToEnd(w);
    expect(final.status).toBe("delivered");
    expect(w.transport.requests.map((r) => header(r, "x-service-retry-attempt"))).toEqual([
      "0",
      "1",
      "2",
    ]);
    for (const request of w.transport.requests) {
      expect(header(request, "x-service-delivery-id")).toBe(w.delivery.id);
      expect(header(request, "x-service-topic")).toBe("message.sent");
      expect(header(request, "x-service-signature")).toBe(
        expectedSignature(w.webhook.signing_secret, request),
      );
      expect(request.body).toBe(w.delivery.payload);
      expect(request.timeoutMs).toBe(15_000);
      const sentAt = Number(header(request, "x-service-timestamp")) * 1000;
      expect(
        verifyWebhook(request.body, request.headers, w.webhook.signing_secret, { now: sentAt }),
      ).toMatchObject({ value: { deliveryId: w.delivery.id, topic: "message.sent" } });
    }
    // The timestamp is the attempt's own second, not the event's.
    const stamps = w.transport.requests.map((r) => Number(header(r, "x-service-timestamp")));
    expect(stamps[0]).toBe(Math.floor(Date.UTC(2026, 4, 1, 12) / 1000));
    expect(stamps[2]).toBeGreaterThan(stamps[1] ?? 0);
  });

  it("every attempt is logged: number, status, duration, error and the first 2 KiB of the answer", async () => {
    const answers: WebhookResponse[] = [
      { kind: "error", error: "timed out after 15000 ms", durationMs: 15_000 },
      { kind: "response", status: 500, headers: {}, body: "é".repeat(5000), durationMs: 12 },
      { kind: "response", status: 204, headers: {}, body: "", durationMs: 3 },
    ];
    const w = await subscribedWorld(() => answers.shift() ?? status(200));
    await runToEnd(w);
    const attempts = await w.storage.raw.attempts(w.delivery.id);
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.durationMs])).toEqual([
      [0, null, 15_000],
      [1, 500, 12],
      [2, 204, 3],
    ]);
    expect(attempts[0]?.error).toBe("timed out after 15000 ms");
    expect(attempts[1]?.error).toContain("500");
    expect(Buffer.byteLength(attempts[1]?.responseBody ?? "")).toBe(2048);
    expect(attempts[2]?.error).toBeNull();
  });

  it("a 429's Retry-After pushes the next attempt back", async () => {
    const w = await subscribedWorld(() => status(429, { "retry-after": "600" }));
    await w.engine.runOnce();
    const after429 = await w.storage.raw.delivery(w.delivery.id);
    expect(after429?.status).toBe("pending");
    expect(Date.parse(after429?.nextAttemptAt ?? "")).toBeGreaterThanOrEqual(
      Date.UTC(2026, 4, 1, 12) + 600_000,
    );
  });

  it("a receiver that never answers 2xx is given up 72 h after the first attempt: failed", async () => {
    const w = await subscribedWorld(() => status(500));
    const start = w.clock.now();
    const final = await runToEnd(w);
    expect(final.status).toBe("failed");
    const attempts = await w.storage.raw.attempts(w.delivery.id);
    expect(attempts.length).toBeGreaterThan(5);
    for (const a of attempts)
      expect(Date.parse(a.startedAt)).toBeLessThanOrEqual(start + 72 * HOUR);
    expect(w.transport.requests).toHaveLength(attempts.length);
  });

  it("a retry goes to the subscription's current URL, signed with its current secret", async () => {
    const answers = [500, 200];
    const w = await subscribedWorld(() => status(answers.shift() ?? 200));
    await w.engine.runOnce();
    await updateWebhook(w.deps, w.actor, w.webhook.webhook_id, {
      url: "https://new.example.com/in",
    });
    const rotated = (
      await rotateWebhookSecret(w.deps, w.actor, w.webhook.webhook_id)
    )._unsafeUnwrap();
    await runToEnd(w);
    const retry = w.transport.requests[1];
    if (!retry) throw new Error("expected a retry");
    expect(retry.url).toBe("https://new.example.com/in");
    expect(header(retry, "x-service-signature")).toBe(
      expectedSignature(rotated.signing_secret, retry),
    );
    const sentAt = Number(header(retry, "x-service-timestamp")) * 1000;
    expect(
      verifyWebhook(retry.body, retry.headers, w.webhook.signing_secret, { now: sentAt }),
    ).toMatchObject({ error: { reason: "signature_mismatch" } });
  });

  it("a message's own webhook_url is signed with the API key's webhook signing secret", async () => {
    const transport = fakeTransport();
    const w = await webhookWorld(transport);
    const message = await w.message({ webhookUrl: "https://own.example.com/hook" });
    await w.storage.transaction((tx) => recordEvent(tx, w.deps, message, "message.sent", null));
    await createDeliveryEngine(w.deps).runOnce();
    const [request] = transport.requests;
    if (!request) throw new Error("expected a request");
    expect(request.url).toBe("https://own.example.com/hook");
    // The seeded key's secret is sealed as "sealed:key-secret".
    expect(header(request, "x-service-signature")).toBe(expectedSignature("key-secret", request));
  });

  it("a delivery whose subscription is gone is failed without a request", async () => {
    const transport = fakeTransport();
    const w = await webhookWorld(transport);
    const orphan = aDelivery({
      organizationId: w.org.organization.id,
      eventId: aUuid(),
      destination: { kind: "subscription", webhookId: "whk_00000000000000000000000000" },
      nextAttemptAt: isoAt(w.clock.now()),
    });
    await w.storage.deliveries.insert(orphan);
    await createDeliveryEngine(w.deps).runOnce();
    expect(transport.requests).toEqual([]);
    expect((await w.storage.raw.delivery(orphan.id))?.status).toBe("failed");
    expect((await w.storage.raw.attempts(orphan.id))[0]?.error).toMatch(/deleted/);
  });

  it("a claim is a lease: a dead worker's delivery is picked up by another after the lease ends", async () => {
    const w = await subscribedWorld(() => status(200));
    const claimed = await w.storage.deliveries.claimDue(isoAt(w.clock.now()), 10, "dead", 60_000);
    expect(claimed.map((d) => d.id)).toEqual([w.delivery.id]);
    const engineB = createDeliveryEngine(w.deps, { owner: "engine-b" });
    expect(await engineB.runOnce()).toBe(0);
    w.clock.advance(60_000);
    expect(await engineB.runOnce()).toBe(1);
    expect((await w.storage.raw.delivery(w.delivery.id))?.status).toBe("delivered");
    expect(w.transport.requests).toHaveLength(1);
  });

  it("stop() stops claiming and resolves only once the attempt in flight is recorded", async () => {
    const hold = gate();
    const arrived = gate();
    const w = await subscribedWorld(async () => {
      arrived.open();
      await hold.promise;
      return status(200);
    });
    w.engine.start();
    w.engine.wake();
    await arrived.promise;
    let stopped = false;
    const stopping = w.engine.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    hold.open();
    await stopping;
    expect((await w.storage.raw.delivery(w.delivery.id))?.status).toBe("delivered");
  });

  it("a destination that answers gets its slots; one not heard from yet, one at a time", async () => {
    const slow = gate();
    const fastSeen = gate();
    let slowInFlight = 0;
    let maxSlowInFlight = 0;
    let primed = false;
    const transport = fakeTransport(async (request) => {
      if (request.url.startsWith("https://fast.")) {
        fastSeen.open();
        return status(200);
      }
      // The slow host answers its first request at once, so the engine knows it answers.
      if (!primed) {
        primed = true;
        return status(200);
      }
      slowInFlight += 1;
      maxSlowInFlight = Math.max(maxSlowInFlight, slowInFlight);
      // Past its slots the slow host has already won: end the wait so the test fails at once.
      if (slowInFlight > 2) fastSeen.open();
      await slow.promise;
      slowInFlight -= 1;
      return status(200);
    });
    const w = await webhookWorld(transport);
    const emitTo = async (url: string) => {
      const message = await w.message({ webhookUrl: url });
      await w.storage.transaction((tx) => recordEvent(tx, w.deps, message, "message.sent", null));
    };
    const engine = createDeliveryEngine(w.deps, { concurrency: 4, perDestination: 2 });
    await emitTo("https://slow.example.com/first");
    expect(await engine.runOnce()).toBe(1);
    for (let i = 0; i < 10; i++) await emitTo(`https://slow.example.com/${i}`);
    await emitTo("https://fast.example.com/in");

    // One pass starts the fast host's delivery beside the slow host's two, without waiting.
    const run = engine.runOnce();
    await fastSeen.promise;
    slow.open();
    expect(await run).toBe(3);
    expect(maxSlowInFlight).toBe(2);
    // The slow backlog left unstarted was never claimed: no lease holds it back.
    const owed = (await w.storage.raw.deliveries()).filter((d) => d.status === "pending");
    expect(owed).toHaveLength(8);
    expect(owed.every((d) => d.leaseOwner === null)).toBe(true);
    await repeatUntilDone("draining the slow backlog", 20, async () => {
      const started = await engine.runOnce();
      expect(maxSlowInFlight).toBe(2);
      return started === 0;
    });
    const deliveries = await w.storage.raw.deliveries();
    expect(deliveries.filter((d) => d.status === "delivered")).toHaveLength(12);
    expect(transport.requests).toHaveLength(12);
  });

  it("a receiver that hangs with a 500-delivery backlog does not delay another destination's deliveries", async () => {
    const hang = gate();
    const toB: string[] = [];
    const bDone = gate();
    // Opens if A is ever given more than one slot, so a regression fails here, not by timeout.
    const aOverrun = gate();
    let sentToA = 0;
    const transport = fakeTransport(async (request) => {
      if (request.url.startsWith("https://a.")) {
        sentToA += 1;
        if (sentToA > 1) aOverrun.open();
        await hang.promise;
      }
      return status(200);
    });
    const w = await webhookWorld(transport);
    const subscribe = async (url: string, topic: "message.sent" | "message.delivered") =>
      (await w.addWebhook({ url, topics: [topic] })).webhook_id;
    const hookA = await subscribe("https://a.example.com/in", "message.sent");
    const hookB = await subscribe("https://b.example.com/in", "message.delivered");
    const enqueue = async (webhookId: string, dueMs: number) => {
      const delivery = aDelivery({
        organizationId: w.org.organization.id,
        eventId: aUuid(),
        destination: { kind: "subscription", webhookId },
        nextAttemptAt: isoAt(dueMs),
      });
      await w.storage.deliveries.insert(delivery);
      return delivery;
    };
    // A's whole backlog fell due before any of B's deliveries.
    const start = w.clock.now();
    const keyOfA = (await enqueue(hookA, start - 60_000)).destinationKey;
    for (let i = 1; i < 500; i++) await enqueue(hookA, start - 60_000 + i);
    const bIds: string[] = [];
    for (let i = 0; i < 5; i++) bIds.push((await enqueue(hookB, start)).id);

    const engine = createDeliveryEngine(w.deps, {
      owner: "engine-a",
      logger: (entry) => {
        if (entry.event !== "attempt" || entry.url?.startsWith("https://b.") !== true) return;
        toB.push(entry.deliveryId);
        if (toB.length === 5) bDone.open();
      },
    });
    engine.start();
    try {
      await within(10_000, "B's five deliveries", Promise.race([bDone.promise, aOverrun.promise]));
      // B is done while the one attempt to A, never heard from, still waits for an answer.
      const stored = await w.storage.raw.deliveries();
      const ofB = stored.filter((d) => bIds.includes(d.id));
      const ofA = stored.filter((d) => d.destinationKey === keyOfA);
      expect(ofB.map((d) => d.status)).toEqual(Array(5).fill("delivered"));
      expect(toB.sort()).toEqual([...bIds].sort());
      expect(ofA).toHaveLength(500);
      expect(ofA.every((d) => d.status === "pending" && d.attempts === 0)).toBe(true);
      expect(sentToA).toBe(1);
      expect(ofA.filter((d) => d.leaseOwner !== null)).toHaveLength(1);
    } finally {
      hang.open();
      await engine.stop();
    }
    // A answered at last: it gets its full slots and its backlog drains.
    await repeatUntilDone("draining A", 200, async () => (await engine.runOnce()) === 0);
    const after = await w.storage.raw.deliveries();
    expect(after.filter((d) => d.status === "delivered")).toHaveLength(505);
    expect(after.filter((d) => d.leaseOwner !== null)).toEqual([]);
  });

  it("dead receivers share at most the unproven slots: one that answers is never held up", async () => {
    const hang = gate();
    let deadInFlight = 0;
    let maxDeadInFlight = 0;
    const liveDone = gate();
    let liveDelivered = 0;
    const transport = fakeTransport(async (request) => {
      if (request.url.startsWith("https://live.")) return status(204);
      deadInFlight += 1;
      maxDeadInFlight = Math.max(maxDeadInFlight, deadInFlight);
      await hang.promise;
      deadInFlight -= 1;
      return { kind: "error", error: "timed out", durationMs: 15_000 } satisfies WebhookResponse;
    });
    const w = await webhookWorld(transport);
    const emitTo = async (url: string) => {
      const message = await w.message({ webhookUrl: url });
      await w.storage.transaction((tx) => recordEvent(tx, w.deps, message, "message.sent", null));
    };
    const engine = createDeliveryEngine(w.deps, {
      concurrency: 8,
      unprovenConcurrency: 3,
      logger: (entry) => {
        if (entry.event === "attempt" && entry.url?.startsWith("https://live.") === true) {
          liveDelivered += 1;
          if (liveDelivered === 21) liveDone.open();
        }
      },
    });
    // The live receiver has answered once; then fifty dead hosts and twenty more live events.
    await emitTo("https://live.example.com/first");
    expect(await engine.runOnce()).toBe(1);
    for (let i = 0; i < 50; i++) await emitTo(`https://dead-${i}.example.com/in`);
    for (let i = 0; i < 20; i++) await emitTo(`https://live.example.com/${i}`);
    engine.start();
    try {
      await within(10_000, "the live receiver's deliveries", liveDone.promise);
      // Every live delivery landed while the dead hosts' attempts were all still hanging.
      expect(deadInFlight).toBe(3);
      expect(maxDeadInFlight).toBe(3);
    } finally {
      hang.open();
      await engine.stop();
    }
  });

  it("a destination that stops answering has its circuit opened, probed, and closed with its backlog due", async () => {
    let answering = false;
    const transport = fakeTransport(async () =>
      answering
        ? status(200)
        : ({ kind: "error", error: "connection refused", durationMs: 3 } satisfies WebhookResponse),
    );
    const w = await webhookWorld(transport);
    const log: string[] = [];
    const engine = createDeliveryEngine(w.deps, {
      random: () => 0.5,
      circuit: { failuresToOpen: 3, openMs: 5_000, maxOpenMs: 20_000 },
      logger: (entry) => {
        if (entry.event === "circuit") log.push(`${entry.state} ${entry.destination}`);
      },
    });
    for (let i = 0; i < 6; i++) {
      const message = await w.message({ webhookUrl: `https://down.example.com/${i}` });
      await w.storage.transaction((tx) => recordEvent(tx, w.deps, message, "message.sent", null));
    }
    const key = `${w.org.organization.id} https://down.example.com`;
    // One at a time while it does not answer; the third unanswered attempt opens the circuit.
    for (let i = 0; i < 3; i++) expect(await engine.runOnce()).toBe(1);
    expect(log).toEqual([`opened ${key}`]);
    expect(engine.openCircuits()).toBe(1);
    // Open: its three due deliveries wait, not tried at all.
    expect(await engine.runOnce()).toBe(0);
    w.clock.advance(4_999);
    expect(await engine.runOnce()).toBe(0);
    // Half-open: one probe, unanswered: open again for twice as long.
    w.clock.advance(1);
    expect(await engine.runOnce()).toBe(1);
    w.clock.advance(9_999);
    expect(await engine.runOnce()).toBe(0);
    expect(transport.requests).toHaveLength(4);
    // The receiver is back: the next probe closes the circuit, and every delivery still backing
    // off (the four tried, due 30 s or more after their attempt) is due at once.
    answering = true;
    w.clock.advance(1);
    expect(await engine.runOnce()).toBe(1);
    expect(log).toEqual([`opened ${key}`, `closed ${key}`]);
    expect(engine.openCircuits()).toBe(0);
    await repeatUntilDone("the backlog", 10, async () => (await engine.runOnce()) === 0);
    const deliveries = await w.storage.raw.deliveries();
    expect(deliveries.map((d) => d.status)).toEqual(Array(6).fill("delivered"));
    expect(transport.requests).toHaveLength(10);
  });

  it("an attempt whose recording fails is kept and recorded later, not lost or sent again", async () => {
    const w = await subscribedWorld(async () => status(200));
    const logged: string[] = [];
    const engine = createDeliveryEngine(w.deps, {
      owner: "engine-a",
      logger: (entry) =>
        logged.push(entry.event === "error" ? `error ${entry.stage}` : entry.event),
    });
    w.storage.failNext("deliveries.completeAttempts");
    expect(await engine.runOnce()).toBe(1);
    expect(logged).toEqual(["error record", "attempt"]);
    expect(w.transport.requests).toHaveLength(1);
    expect(await w.storage.raw.delivery(w.delivery.id)).toMatchObject({
      status: "delivered",
      attempts: 1,
      leaseOwner: null,
    });
    expect(await w.storage.raw.attempts(w.delivery.id)).toHaveLength(1);
  });

  it("refuses slot counts that are not positive integers", async () => {
    const w = await webhookWorld();
    expect(() => createDeliveryEngine(w.deps, { perDestination: 0 })).toThrow(RangeError);
    expect(() => createDeliveryEngine(w.deps, { concurrency: 1.5 })).toThrow(RangeError);
  });

  it("refuses a lease that does not outlast the webhook timeout", async () => {
    const w = await webhookWorld();
    expect(() => createDeliveryEngine(w.deps, { leaseMs: 15_000 })).toThrow(RangeError);
  });
});
