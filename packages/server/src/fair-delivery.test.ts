import { cleanupsEach, skippedUnless } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { startFlakyReceiver } from "./testing/flaky-receiver.js";
import {
  createSender,
  type ProcessCluster,
  type Sender,
  startProcessCluster,
} from "./testing/process-cluster.js";
import { serveTidings } from "./testing/served-tidings.js";
import { startWebhookTally, type WebhookTally } from "./testing/webhook-tally.js";

// The flood of issue 15, through the real server and real receivers on port 0: organization B
// sends to receivers that never answer, and organization A's next event must still reach A's
// receiver at once. Order, not speed, is asserted; the 1 s p99 figure lives in bench/.

const SCOPES = "profiles:read,profiles:write,messages:send,webhooks:manage";
const FLOOD = 60;

const cleanups = cleanupsEach();

async function tally(secret: string, hold = false): Promise<WebhookTally> {
  const receiver = await startWebhookTally(secret, { hold });
  cleanups.push(() => receiver.close());
  return receiver;
}

/** Calls `baseUrl` with `sender`'s key; answers the status and the parsed body. */
const apiOf =
  (baseUrl: string, sender: Sender) => async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sender.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      json: (text === "" ? {} : JSON.parse(text)) as Record<string, unknown>,
    };
  };

const sendBody = (sender: Sender, extra: Record<string, unknown> = {}) => ({
  campaign_id: sender.campaignId,
  recipient: { type: "phone_number", value: "+14155550100" },
  params: { pin: "123456" },
  ...extra,
});

/**
 * Floods from organization B to two receivers that never answer, then sends once from A, whose
 * subscription points at a healthy receiver: A's message.sent must arrive while every request
 * to B's receivers is still held, and B's backlog must drain once its receivers answer again.
 */
async function floodThenSend(
  baseUrl: string,
  a: Sender,
  b: Sender,
  engines: number,
): Promise<void> {
  const deadOne = await tally(b.webhookSigningSecret, true);
  const deadTwo = await tally(b.webhookSigningSecret, true);
  const healthy = await tally("not checked");
  const asA = apiOf(baseUrl, a);
  const asB = apiOf(baseUrl, b);
  const hook = await asA("POST", "/v1/webhooks", { url: healthy.url, topics: ["message.sent"] });
  expect(hook.status).toBe(201);

  for (let i = 0; i < FLOOD; i++) {
    const dead = i % 2 === 0 ? deadOne : deadTwo;
    const sent = await asB("POST", "/v1/messages/send", sendBody(b, { webhook_url: dead.url }));
    expect(sent.status).toBe(200);
  }
  // Both dead receivers hold at least one attempt: the flood is in flight.
  await eventually("both dead receivers holding a request", async () =>
    deadOne.open().length > 0 && deadTwo.open().length > 0 ? true : undefined,
  );

  const sent = await asA("POST", "/v1/messages/send", sendBody(a));
  expect(sent.status).toBe(200);
  const messageId = String(sent.json.message_id);
  const arrival = await eventually("A's message.sent at A's receiver", async () =>
    healthy.received.find((r) => r.messageId === messageId && r.topic === "message.sent"),
  );
  expect(arrival.outcome).toBe("answered");
  // Order: A's delivery landed before any attempt to a dead receiver ended.
  const held = [...deadOne.received, ...deadTwo.received];
  expect(held.length).toBeGreaterThan(0);
  expect(held.every((r) => r.outcome === "open")).toBe(true);
  // A receiver not heard from gets one attempt at a time from each engine.
  expect(deadOne.open().length).toBeLessThanOrEqual(engines);
  expect(deadTwo.open().length).toBeLessThanOrEqual(engines);

  // The receivers come back: every message.sent of the flood reaches them.
  deadOne.release();
  deadTwo.release();
  const delivered = (r: WebhookTally) =>
    new Set(
      r.received
        .filter((x) => x.topic === "message.sent" && x.outcome === "answered")
        .map((x) => x.messageId),
    );
  await eventually(
    "the flood's message.sent deliveries after recovery",
    async () => (delivered(deadOne).size + delivered(deadTwo).size === FLOOD ? true : undefined),
    60_000,
  );
}

describe("fair delivery between organizations (through tidings serve)", () => {
  it("SQLite: one organization's dead receivers do not hold up another's delivery", async () => {
    const tidings = await serveTidings({ TIDINGS_SANDBOX_DELAY_MS: "600000" });
    cleanups.push(() => tidings.stop());
    const a = await createSender(tidings.env, SCOPES);
    const b = await createSender(tidings.env, SCOPES);
    await floodThenSend(tidings.url, a, b, 1);
  }, 120_000);

  const pgUrl = process.env.TIDINGS_TEST_PG_URL;
  it.skipIf(
    skippedUnless(
      pgUrl !== undefined,
      "fair delivery across processes needs a PostgreSQL server; set TIDINGS_TEST_PG_URL to run them",
    ),
  )(
    "PostgreSQL, one serve and two workers: the same",
    async () => {
      const cluster: ProcessCluster = await startProcessCluster({
        pgUrl: pgUrl ?? "",
        servers: 1,
        workers: 2,
        env: { TIDINGS_SANDBOX_DELAY_MS: "600000" },
      });
      cleanups.push(() => cluster.stop());
      const a = await createSender(cluster.env, SCOPES);
      const b = await createSender(cluster.env, SCOPES);
      const [server] = cluster.servers;
      if (server === undefined) throw new Error("expected a server");
      // Every process runs a delivery engine: the server and both workers.
      await floodThenSend(server.baseUrl, a, b, 3);
    },
    180_000,
  );
});

describe("a subscription whose deliveries keep failing is turned off (through tidings serve)", () => {
  it("shows disabled_reason failing in GET /v1/webhooks, logs it, and a PATCH to active clears it", async () => {
    const tidings = await serveTidings({
      TIDINGS_WEBHOOK_DISABLE_AFTER_MS: "1500",
      TIDINGS_SANDBOX_DELAY_MS: "600000",
    });
    cleanups.push(() => tidings.stop());
    const failing = await startFlakyReceiver();
    cleanups.push(() => failing.close());
    const sender: Sender = {
      token: tidings.token,
      campaignId: tidings.campaignId,
      webhookSigningSecret: "",
    };
    const api = apiOf(tidings.url, sender);
    const hook = await api("POST", "/v1/webhooks", { url: failing.url, topics: ["message.sent"] });
    expect(hook.status).toBe(201);
    const webhookId = String(hook.json.webhook_id);

    expect((await api("POST", "/v1/messages/send", sendBody(sender))).status).toBe(200);
    await eventually("the first failed attempt", async () =>
      failing.arrivals.length >= 1 ? true : undefined,
    );
    // Past the disable time, the next failed attempt turns the subscription off.
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await api("POST", "/v1/messages/send", sendBody(sender))).status).toBe(200);
    const line = await tidings.waitForLog(
      "webhook subscription disabled: its deliveries kept failing",
    );
    expect(line).toMatchObject({ webhook_id: webhookId });

    const listed = await api("GET", "/v1/webhooks");
    expect(listed.json.data).toEqual([
      expect.objectContaining({
        webhook_id: webhookId,
        status: "inactive",
        disabled_reason: "failing",
      }),
    ]);
    const deliveries = await api("GET", `/v1/webhooks/${webhookId}/deliveries?status=cancelled`);
    expect((deliveries.json.data as unknown[]).length).toBe(2);

    // The metric says so too, beside the engine's open circuits (none: the receiver answers).
    const metrics = await (await fetch(`${tidings.url}/metrics`)).text();
    expect(metrics).toMatch(/^tidings_webhook_subscriptions_disabled_total 1$/m);
    expect(metrics).toMatch(/^tidings_webhook_open_circuits 0$/m);

    const enabled = await api("PATCH", `/v1/webhooks/${webhookId}`, { status: "active" });
    expect(enabled.status).toBe(200);
    expect(enabled.json).toMatchObject({ status: "active", disabled_reason: null });
  }, 60_000);
});
