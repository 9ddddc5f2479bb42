import { createHmac, randomBytes } from "node:crypto";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { createUrlPolicy, undiciWebhookTransport } from "@tidings/adapter-http";
import { sqliteStorage } from "@tidings/adapter-sqlite";
import {
  type Actor,
  aesGcmSecretBox,
  createDeliveryEngine,
  createIds,
  createWebhook,
  type DeliveryLogEntry,
  defaultConfig,
  manualClock,
  recordEvent,
  updateWebhook,
  verifyWebhook,
} from "@tidings/core";
import { cleanupsEach, seedMessage, seedOrganization, within } from "@tidings/core/testing";
import { expect, it } from "vitest";

// The issue 4 receiver test: the real delivery engine, the undici transport and SQLite storage
// against a node:http receiver on port 0 that misbehaves in every way a receiver can.

/** The webhook deadline of this test: short, so the hanging attempt costs little. */
const TIMEOUT_MS = 500;
/** How long the slow answer takes: well past a quick answer, well within the deadline. */
const SLOW_MS = 200;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the receiver answered, or `null` when it never answered. */
  answered: number | null;
}

type Behaviour = (req: IncomingMessage, res: ServerResponse, seen: Received) => void;

const answer = (res: ServerResponse, seen: Received, status: number, body = "") => {
  seen.answered = status;
  res.writeHead(status, { "content-type": "text/plain" }).end(body);
};

const cleanups = cleanupsEach();

/** A receiver on loopback that meets its requests with `script`, in order, then with 200s. */
async function receiver(script: Behaviour[]) {
  const received: Received[] = [];
  let arrived: () => void = () => undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const seen: Received = {
        path: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        answered: null,
      };
      const behaviour = script[received.length] ?? ((_q, s, r) => answer(s, r, 200, "ok"));
      received.push(seen);
      arrived();
      behaviour(req, res, seen);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  /** Resolves once the receiver has had `count` requests. */
  const requests = (count: number) =>
    within(
      20_000,
      `${count} requests at the receiver`,
      new Promise<void>((resolve) => {
        arrived = () => {
          if (received.length >= count) resolve();
        };
        arrived();
      }),
    );
  return { url, received, requests };
}

/** Real storage, a manual clock, the undici transport allowed onto loopback, one organization. */
async function world() {
  const urlPolicy = createUrlPolicy({ dev: true });
  const transport = undiciWebhookTransport({ urlPolicy });
  const storage = sqliteStorage(":memory:");
  cleanups.push(() => storage.close());
  cleanups.push(() => transport.close());
  const clock = manualClock(Date.UTC(2026, 4, 1, 12));
  const deps = {
    storage,
    clock,
    ids: createIds(clock),
    secretBox: aesGcmSecretBox(randomBytes(32)),
    transport,
    urlPolicy,
    config: { ...defaultConfig, webhookTimeoutMs: TIMEOUT_MS },
  };
  const org = await seedOrganization(storage);
  const actor: Actor = { organizationId: org.organization.id, apiKeyId: null };
  const log: DeliveryLogEntry[] = [];
  const engine = createDeliveryEngine(deps, {
    owner: "engine-real",
    random: () => 0.5,
    logger: (entry) => log.push(entry),
  });
  /** Subscribes `url` to message.sent, and records one message.sent event: one delivery. */
  const oneDelivery = async (url: string) => {
    const webhook = (
      await createWebhook(deps, actor, { url, topics: ["message.sent"] })
    )._unsafeUnwrap();
    const { message } = await seedMessage(storage, org);
    await storage.transaction((tx) => recordEvent(tx, deps, message, "message.sent", null));
    const [delivery] = await storage.deliveries.listForMessage(actor.organizationId, message.id);
    if (delivery === undefined) throw new Error("expected one delivery");
    return { webhook, delivery };
  };
  return { deps, storage, clock, actor, engine, log, oneDelivery };
}

const header = (seen: Received, name: string): string => {
  const value = seen.headers[name];
  return Array.isArray(value) ? value.join(", ") : (value ?? "");
};

/** docs/decisions.md "Signed bytes", written out here without core's signing code. */
const plainHmac = (secret: string, timestamp: string, rawBody: string): string =>
  `sha256=${createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestamp}.${rawBody}`).digest("hex")}`;

it("500, timeout, reset, 301 and a slow answer: delivered exactly once, same id, counted retries, verifiable signatures", async () => {
  const hooks = await receiver([
    (_req, res, seen) => answer(res, seen, 500, "boom"),
    () => undefined, // never answers: the deadline passes
    (req) => req.socket.resetAndDestroy(),
    (_req, res, seen) => {
      seen.answered = 301;
      res.writeHead(301, { location: "/hooks-moved" }).end();
    },
    (_req, res, seen) => {
      setTimeout(() => answer(res, seen, 200, "slow but fine"), SLOW_MS);
    },
  ]);
  const w = await world();
  const { webhook, delivery } = await w.oneDelivery(hooks.url);

  // Each due attempt runs on the manual clock, moved to the schedule's next time in between.
  for (let pass = 0; pass < 10; pass++) {
    await w.engine.runOnce();
    const current = await w.storage.deliveries.get(w.actor.organizationId, delivery.id);
    if (current?.status !== "pending") break;
    w.clock.set(Date.parse(current.nextAttemptAt));
  }

  const final = await w.storage.deliveries.get(w.actor.organizationId, delivery.id);
  expect(final).toMatchObject({ status: "delivered", attempts: 5, lastStatusCode: 200 });

  // The receiver: five requests, all for this one delivery, exactly one answered with a 2xx.
  expect(hooks.received).toHaveLength(5);
  expect(hooks.received.map((r) => r.path)).toEqual(Array(5).fill("/hooks"));
  expect(hooks.received.map((r) => r.answered)).toEqual([500, null, null, 301, 200]);
  const twoXx = hooks.received.filter(
    (r) =>
      header(r, "x-service-delivery-id") === delivery.id &&
      r.answered !== null &&
      r.answered >= 200 &&
      r.answered < 300,
  );
  expect(twoXx).toHaveLength(1);
  expect(hooks.received.map((r) => header(r, "x-service-retry-attempt"))).toEqual([
    "0",
    "1",
    "2",
    "3",
    "4",
  ]);
  for (const seen of hooks.received) {
    expect(header(seen, "x-service-delivery-id")).toBe(delivery.id);
    expect(header(seen, "x-service-topic")).toBe("message.sent");
    expect(header(seen, "content-type")).toMatch(/^application\/json/);
    expect(seen.body).toBe(delivery.payload);
    expect(JSON.parse(seen.body)).toMatchObject({ id: delivery.id, topic: "message.sent" });
    const timestamp = header(seen, "x-service-timestamp");
    expect(header(seen, "x-service-signature")).toBe(
      plainHmac(webhook.signing_secret, timestamp, seen.body),
    );
    // Verified as the receiver would on arrival: its clock reads the attempt's time.
    const now = Number(timestamp) * 1000;
    expect(verifyWebhook(seen.body, seen.headers, webhook.signing_secret, { now })).toMatchObject({
      value: { deliveryId: delivery.id, topic: "message.sent" },
    });
    expect(verifyWebhook(seen.body, seen.headers, "whsec_other", { now })).toMatchObject({
      error: { reason: "signature_mismatch" },
    });
  }
  // Every attempt is signed at its own second.
  const stamps = hooks.received.map((r) => Number(header(r, "x-service-timestamp")));
  expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
  expect(new Set(stamps).size).toBe(5);

  // The attempt log: every attempt, with its status code or its error.
  const attempts = await w.storage.deliveries.listAttempts(w.actor.organizationId, delivery.id);
  expect(attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
    [0, 500],
    [1, null],
    [2, null],
    [3, 301],
    [4, 200],
  ]);
  const [http500, timedOut, reset, moved, slow] = attempts;
  expect(http500).toMatchObject({ error: expect.stringContaining("500"), responseBody: "boom" });
  expect(timedOut?.error).toMatch(/timeout/i);
  expect(timedOut?.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  expect(reset?.error).toMatch(/ECONNRESET|closed|socket/i);
  expect(moved?.error).toContain("301");
  expect(slow).toMatchObject({ error: null, responseBody: "slow but fine" });
  expect(slow?.durationMs).toBeGreaterThanOrEqual(SLOW_MS - 20);
  for (const [i, a] of attempts.entries()) {
    expect(Math.floor(Date.parse(a.startedAt) / 1000)).toBe(stamps[i]);
  }
  // The engine's log line of every attempt says its outcome was applied.
  const lines = w.log.filter((entry) => entry.event === "attempt");
  expect(lines.map((l) => [l.attempt, l.statusCode, l.outcome, l.recorded])).toEqual([
    [0, 500, "pending", true],
    [1, null, "pending", true],
    [2, null, "pending", true],
    [3, 301, "pending", true],
    [4, 200, "delivered", true],
  ]);
});

it("an attempt in flight when its subscription is deactivated is still logged; the delivery stays cancelled", async () => {
  let release: () => void = () => undefined;
  const hooks = await receiver([
    (_req, res, seen) => {
      release = () => answer(res, seen, 200, "late");
    },
  ]);
  const w = await world();
  const { webhook, delivery } = await w.oneDelivery(hooks.url);

  const run = w.engine.runOnce();
  await hooks.requests(1);
  const deactivated = await updateWebhook(w.deps, w.actor, webhook.webhook_id, {
    status: "inactive",
  });
  expect(deactivated.isOk()).toBe(true);
  release();
  expect(await run).toBe(1);

  expect(await w.storage.deliveries.get(w.actor.organizationId, delivery.id)).toMatchObject({
    status: "cancelled",
    attempts: 0,
    leaseOwner: null,
  });
  const attempts = await w.storage.deliveries.listAttempts(w.actor.organizationId, delivery.id);
  expect(attempts.map((a) => [a.attempt, a.statusCode, a.responseBody])).toEqual([
    [0, 200, "late"],
  ]);
  const lines = w.log.filter((entry) => entry.event === "attempt");
  expect(lines.map((l) => [l.deliveryId, l.statusCode, l.recorded])).toEqual([
    [delivery.id, 200, false],
  ]);
  // Nothing is owed any more: a later pass sends nothing.
  w.clock.advance(60 * 60 * 1000);
  expect(await w.engine.runOnce()).toBe(0);
  expect(hooks.received).toHaveLength(1);
});
