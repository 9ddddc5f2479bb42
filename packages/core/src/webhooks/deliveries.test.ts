import { describe, expect, it } from "vitest";
import { fakeTransport, status } from "../testing/fakes.js";
import { listMessageDeliveries, redeliverDelivery } from "./deliveries.js";
import { createDeliveryEngine } from "./delivery-engine.js";
import { recordEvent } from "./outbox.js";
import { createWebhook } from "./subscriptions.js";
import { webhookWorld } from "./test-kit.js";

async function world(answers: number[]) {
  const transport = fakeTransport(() => status(answers.shift() ?? 200));
  const w = await webhookWorld(transport);
  await createWebhook(w.deps, w.actor, { url: "https://h.example.com", topics: ["message.sent"] });
  const message = await w.message();
  await w.storage.transaction((tx) => recordEvent(tx, w.deps, message, "message.sent", null));
  const [delivery] = await w.storage.raw.deliveries();
  if (!delivery) throw new Error("expected a delivery");
  const engine = createDeliveryEngine(w.deps, { random: () => 0 });
  return { ...w, transport, message, delivery, engine };
}

describe("a message's deliveries and redelivery", () => {
  it("lists a message's deliveries with every attempt", async () => {
    const w = await world([500]);
    await w.engine.runOnce();
    const list = (await listMessageDeliveries(w.deps, w.actor, w.message.id))._unsafeUnwrap();
    expect(list.meta).toEqual({ has_more: false, next_cursor: null });
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      delivery_id: w.delivery.id,
      message_id: w.message.id,
      topic: "message.sent",
      status: "pending",
      attempt_count: 1,
      last_status_code: 500,
      attempts: [{ attempt: 0, status_code: 500, started_at: "2026-05-01T12:00:00.000Z" }],
    });
  });

  it("an unknown, malformed or other organization's message is 404 message_not_found", async () => {
    const w = await world([]);
    const other = await webhookWorld();
    for (const id of ["nope", "0190a6d8-0000-7000-8000-000000000000", w.message.id]) {
      expect(
        (await listMessageDeliveries(other.deps, other.actor, id))._unsafeUnwrapErr(),
      ).toMatchObject({ type: "not_found", code: "message_not_found" });
    }
  });

  it("only a failed delivery can be redelivered: it goes again with the same id", async () => {
    const w = await world([]);
    expect(
      (await redeliverDelivery(w.deps, w.actor, w.delivery.id))._unsafeUnwrapErr(),
    ).toMatchObject({
      type: "conflict",
      code: "delivery_not_failed",
    });
    await w.storage.deliveries.claimDue(w.delivery.nextAttemptAt, 1, "x", 60_000);
    await w.storage.deliveries.completeAttempt(w.delivery.id, "x", {
      attempt: {
        deliveryId: w.delivery.id,
        organizationId: w.delivery.organizationId,
        attempt: 0,
        startedAt: w.delivery.nextAttemptAt,
        durationMs: 1,
        statusCode: 500,
        error: "HTTP 500",
        responseBody: null,
      },
      next: { status: "failed" },
    });
    w.clock.advance(1000);
    const view = (await redeliverDelivery(w.deps, w.actor, w.delivery.id))._unsafeUnwrap();
    expect(view).toMatchObject({ status: "pending", next_attempt_at: "2026-05-01T12:00:01.000Z" });
    expect(await w.engine.runOnce()).toBe(1);
    const [request] = w.transport.requests;
    expect(request?.headers).toBeDefined();
    const delivered = await w.storage.raw.delivery(w.delivery.id);
    expect(delivered).toMatchObject({ status: "delivered", attempts: 2 });
    expect(
      Object.entries(request?.headers ?? {}).find(
        ([k]) => k.toLowerCase() === "x-service-delivery-id",
      )?.[1],
    ).toBe(w.delivery.id);
  });

  it("redelivering an unknown or malformed delivery is 404 delivery_not_found", async () => {
    const w = await world([]);
    for (const id of ["nope", "0190a6d8-0000-7000-8000-000000000000"]) {
      expect((await redeliverDelivery(w.deps, w.actor, id))._unsafeUnwrapErr()).toMatchObject({
        code: "delivery_not_found",
      });
    }
  });
});
