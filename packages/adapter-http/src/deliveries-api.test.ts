import { createDeliveryEngine, type WebhookRequest, type WebhookResponse } from "@tidings/core";
import { describe, expect, it } from "vitest";
import { otpBody } from "./testing/http-world.js";
import { type SpecWorld, specWorld } from "./testing/world-with-spec.js";

const ONE = "/v1/deliveries/{delivery_id}";
const REDELIVER = "/v1/deliveries/{delivery_id}/redeliver";

/**
 * A world with one subscription to message.sent whose receiver answers what `answer` says,
 * one sent message, and an engine whose passes the test runs.
 */
async function deliveryWorld() {
  const world = await specWorld();
  let status = 500;
  const posted: WebhookRequest[] = [];
  world.transport.post = async (request): Promise<WebhookResponse> => {
    posted.push(request);
    return {
      kind: "response",
      status,
      headers: {},
      body: `answer ${status} ${"x".repeat(3000)}`,
      durationMs: 7,
    };
  };
  const hook = await world.request("POST", "/v1/webhooks", {
    body: { url: "https://hooks.example.com/in?token=s3cret", topics: ["message.sent"] },
  });
  const webhookId = String(hook.json.webhook_id);
  const campaign = await world.campaign();
  const sent = await world.request("POST", "/v1/messages/send", {
    body: otpBody(campaign.campaign_id),
  });
  const messageId = String(sent.json.message_id);
  const engine = createDeliveryEngine(world.deps, { random: () => 0.5 });
  const pass = async (advanceMs = 0) => {
    world.clock.advance(advanceMs);
    return engine.runOnce();
  };
  const listed = await world.call("GET", "/v1/deliveries", "/v1/deliveries");
  const deliveryId = String((listed.json.data as Array<{ delivery_id: string }>)[0]?.delivery_id);
  return {
    world,
    webhookId,
    messageId,
    deliveryId,
    posted,
    pass,
    answer: (code: number) => {
      status = code;
    },
  };
}

const get = (world: SpecWorld, id: string) => world.call("GET", ONE, `/v1/deliveries/${id}`);

describe("the delivery log and redelivery over HTTP", () => {
  it("shows attempts with their status codes and bodies cut to 2 KiB, and the URL without its query", async () => {
    const { world, deliveryId, pass, answer } = await deliveryWorld();
    expect(await pass()).toBe(1);
    expect(await pass(40_000)).toBe(1);
    answer(200);
    expect(await pass(80_000)).toBe(1);
    const read = await get(world, deliveryId);
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      delivery_id: deliveryId,
      url: "https://hooks.example.com/in",
      status: "succeeded",
      attempt_count: 3,
      last_status_code: 200,
      next_attempt_at: null,
    });
    const attempts = read.json.attempts as Array<Record<string, unknown>>;
    expect(attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [0, 500],
      [1, 500],
      [2, 200],
    ]);
    expect(Buffer.byteLength(String(attempts[0]?.response_body))).toBe(2048);
    expect(read.json.last_attempt_at).toBe(attempts[2]?.started_at);
    expect(read.body).not.toContain("s3cret");
  });

  it("redeliver: 202, the same id and body, attempt numbers go on; 409 while pending", async () => {
    const { world, deliveryId, pass, posted, answer } = await deliveryWorld();
    const redeliver = () => world.call("POST", REDELIVER, `/v1/deliveries/${deliveryId}/redeliver`);
    const pending = await redeliver();
    expect(pending.status).toBe(409);
    expect(pending.json.code).toBe("delivery_pending");
    answer(204);
    await pass();
    world.clock.advance(5000);
    const again = await redeliver();
    expect(again.status).toBe(202);
    expect(again.json).toMatchObject({
      delivery_id: deliveryId,
      status: "pending",
      attempt_count: 1,
      next_attempt_at: new Date(world.clock.now()).toISOString(),
    });
    expect((await redeliver()).json.code).toBe("delivery_pending");
    expect(await pass()).toBe(1);
    expect(posted).toHaveLength(2);
    expect(posted[1]?.body).toBe(posted[0]?.body);
    expect(posted[1]?.headers["X-Service-Delivery-Id"]).toBe(deliveryId);
    expect(posted[1]?.headers["X-Service-Retry-Attempt"]).toBe("1");
    const read = await get(world, deliveryId);
    expect(read.json).toMatchObject({ status: "succeeded", attempt_count: 2 });
  });

  it("a redelivery that fails again backs off like a new delivery, in a new 72 h window", async () => {
    const { world, deliveryId, pass } = await deliveryWorld();
    // Fail until the 72 h window is over.
    let made = 0;
    for (let hour = 0; hour < 80; hour += 1) made += await pass(hour === 0 ? 0 : 3_600_000);
    const failed = await get(world, deliveryId);
    expect(failed.json.status).toBe("failed");
    expect(made).toBe(failed.json.attempt_count);
    await world.call("POST", REDELIVER, `/v1/deliveries/${deliveryId}/redeliver`);
    expect(await pass()).toBe(1);
    const after = await get(world, deliveryId);
    expect(after.json.status).toBe("pending");
    // 30 s (the first backoff, jitter pinned to 1.0), not the 6 h cap of the old window.
    const next = Date.parse(String(after.json.next_attempt_at)) - world.clock.now();
    expect(next).toBeGreaterThan(29_000);
    expect(next).toBeLessThan(31_000);
  });

  it("409 webhook_inactive and webhook_deleted when the subscription cannot take it", async () => {
    const { world, deliveryId, webhookId, pass, answer } = await deliveryWorld();
    answer(200);
    await pass();
    await world.request("PATCH", `/v1/webhooks/${webhookId}`, { body: { status: "inactive" } });
    const inactive = await world.call("POST", REDELIVER, `/v1/deliveries/${deliveryId}/redeliver`);
    expect(inactive.status).toBe(409);
    expect(inactive.json.code).toBe("webhook_inactive");
    await world.request("DELETE", `/v1/webhooks/${webhookId}`);
    const deleted = await world.call("POST", REDELIVER, `/v1/deliveries/${deliveryId}/redeliver`);
    expect(deleted.json.code).toBe("webhook_deleted");
    // The log keeps the delivery; its URL is gone with the subscription.
    expect((await get(world, deliveryId)).json).toMatchObject({ webhook_id: webhookId, url: null });
  });

  it("lists by subscription, message and status, newest first, and recovers failed deliveries", async () => {
    const { world, deliveryId, webhookId, messageId, pass } = await deliveryWorld();
    await pass();
    const first = (path: string) =>
      world.request("GET", path).then((a) => a.json.data as Array<{ delivery_id: string }>);
    expect((await first(`/v1/webhooks/${webhookId}/deliveries`)).map((d) => d.delivery_id)).toEqual(
      [deliveryId],
    );
    expect((await first(`/v1/messages/${messageId}/deliveries`)).map((d) => d.delivery_id)).toEqual(
      [deliveryId],
    );
    expect(await first(`/v1/webhooks/${webhookId}/deliveries?status=failed`)).toEqual([]);
    expect(await first(`/v1/deliveries?status=pending&webhook_id=${webhookId}`)).toHaveLength(1);
    const recover = (since: string) =>
      world.call("POST", "/v1/webhooks/{webhook_id}/recover", `/v1/webhooks/${webhookId}/recover`, {
        body: { since },
      });
    // Deactivating cancels it; recover after reactivating brings it back, due now.
    await world.request("PATCH", `/v1/webhooks/${webhookId}`, { body: { status: "inactive" } });
    expect(await first("/v1/deliveries?status=cancelled")).toHaveLength(1);
    const refused = await recover("2026-01-01T00:00:00Z");
    expect(refused.json.code).toBe("webhook_inactive");
    await world.request("PATCH", `/v1/webhooks/${webhookId}`, { body: { status: "active" } });
    const recovered = await recover("2026-01-01T00:00:00Z");
    expect(recovered.status).toBe(202);
    expect(recovered.json).toEqual({ requeued: 1 });
    expect((await get(world, deliveryId)).json.status).toBe("pending");
    const bad = await recover("last week");
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toEqual([expect.objectContaining({ path: "since" })]);
  });

  it("failing=true: the pending deliveries whose last attempt failed, in every delivery list", async () => {
    const { world, deliveryId, webhookId, messageId, pass, answer } = await deliveryWorld();
    const failing = async (path: string) => {
      const listed = await world.call("GET", path.split("?")[0] ?? "", path);
      expect(listed.status, path).toBe(200);
      return (listed.json.data as Array<{ delivery_id: string }>).map((d) => d.delivery_id);
    };
    const lists = [
      "/v1/deliveries?failing=true",
      `/v1/webhooks/${webhookId}/deliveries?failing=true`,
      `/v1/messages/${messageId}/deliveries?failing=true`,
    ];
    const templates = [
      "/v1/deliveries",
      "/v1/webhooks/{webhook_id}/deliveries",
      "/v1/messages/{message_id}/deliveries",
    ];
    const all = async () => {
      const found: string[][] = [];
      for (const [i, path] of lists.entries()) {
        const listed = await world.call("GET", templates[i] ?? "", path);
        expect(listed.status, path).toBe(200);
        found.push((listed.json.data as Array<{ delivery_id: string }>).map((d) => d.delivery_id));
      }
      return found;
    };
    // Pending but not attempted yet: not failing.
    expect(await all()).toEqual([[], [], []]);
    await pass();
    expect(await all()).toEqual([[deliveryId], [deliveryId], [deliveryId]]);
    expect(await failing("/v1/deliveries?failing=true&status=pending")).toEqual([deliveryId]);
    expect(await failing("/v1/deliveries?failing=false")).toEqual([deliveryId]);
    // The receiver is back: delivered, no longer failing.
    answer(204);
    await pass(60 * 60_000);
    expect((await get(world, deliveryId)).json.status).toBe("succeeded");
    expect(await all()).toEqual([[], [], []]);

    const contradiction = await world.request("GET", "/v1/deliveries?failing=true&status=failed");
    expect(contradiction.status).toBe(400);
    expect(contradiction.json.errors).toEqual([
      {
        path: "failing",
        message: "cannot be combined with status=failed; failing deliveries are pending.",
      },
    ]);
    const word = await world.request("GET", "/v1/deliveries?failing=yes");
    expect(word.status).toBe(400);
    expect(word.json.errors).toEqual([{ path: "failing", message: "must be true or false." }]);
  });

  it("bad queries are 400 naming the parameter; unknown and other organizations' ids are 404", async () => {
    const { world, deliveryId, webhookId, messageId } = await deliveryWorld();
    for (const url of [
      "/v1/deliveries?status=delivered",
      "/v1/deliveries?webhook_id=cmp_1",
      "/v1/deliveries?created_after=soon",
      "/v1/deliveries?limit=500",
      "/v1/deliveries?cursor=zz",
      `/v1/webhooks/${webhookId}/deliveries?webhook_id=${webhookId}`,
      `/v1/messages/${messageId}/deliveries?limit=0`,
    ]) {
      const answer = await world.request("GET", url);
      expect(answer.status, url).toBe(400);
    }
    const stranger = await world.tenant();
    for (const [method, url] of [
      ["GET", `/v1/deliveries/${deliveryId}`],
      ["POST", `/v1/deliveries/${deliveryId}/redeliver`],
      ["GET", `/v1/webhooks/${webhookId}/deliveries`],
      ["GET", `/v1/messages/${messageId}/deliveries`],
      ["POST", `/v1/webhooks/${webhookId}/recover`],
      ["GET", "/v1/deliveries/nope"],
    ] as const) {
      const answer = await world.request(method, url, {
        token: stranger.token,
        ...(url.endsWith("recover") ? { body: { since: "2026-01-01T00:00:00Z" } } : {}),
      });
      expect(answer.status, url).toBe(404);
    }
    expect(
      (await world.request("GET", "/v1/deliveries", { token: stranger.token })).json.data,
    ).toEqual([]);
  });

  it("needs webhooks:manage", async () => {
    const { world, deliveryId } = await deliveryWorld();
    const reader = await world.tenant(["messages:read", "campaigns:manage"]);
    for (const [method, url] of [
      ["GET", "/v1/deliveries"],
      ["GET", `/v1/deliveries/${deliveryId}`],
      ["POST", `/v1/deliveries/${deliveryId}/redeliver`],
    ] as const) {
      const answer = await world.request(method, url, { token: reader.token });
      expect(answer.status).toBe(403);
      expect(answer.json.code).toBe("missing_scope");
    }
  });
});
