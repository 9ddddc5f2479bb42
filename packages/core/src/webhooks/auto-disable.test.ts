import { describe, expect, it } from "vitest";
import { fakeTransport, status } from "../testing/fakes.js";
import { webhookWorld } from "../testing/webhook-kit.js";
import { createDeliveryEngine, type DeliveryLogEntry } from "./delivery-engine.js";
import { recordEvent } from "./outbox.js";
import { recoverWebhook } from "./redeliver.js";
import { createWebhook, getWebhook } from "./subscriptions.js";
import { updateWebhook } from "./update-webhook.js";

const MINUTE = 60_000;

/** A world whose subscription to message.sent answers what `answer()` says, failing after 10 min. */
async function failingWorld(answer: () => number) {
  const transport = fakeTransport(async () => status(answer()));
  const w = await webhookWorld(transport);
  const deps = { ...w.deps, config: { ...w.deps.config, webhookDisableAfterMs: 10 * MINUTE } };
  const { webhook_id: webhookId } = (
    await createWebhook(deps, w.actor, {
      url: "https://hooks.example.com/in",
      topics: ["message.sent"],
    })
  )._unsafeUnwrap();
  const logged: DeliveryLogEntry[] = [];
  const engine = createDeliveryEngine(deps, {
    random: () => 0.5,
    logger: (entry) => logged.push(entry),
  });
  /** A new message.sent event, due now. */
  const emit = async () => {
    const message = await w.message();
    await w.storage.transaction((tx) => recordEvent(tx, deps, message, "message.sent", null));
  };
  const view = async () => (await getWebhook(deps, w.actor, webhookId))._unsafeUnwrap();
  return { ...w, deps, transport, webhookId, engine, logged, emit, view };
}

describe("a subscription whose deliveries keep failing is turned off (docs/decisions.md 'Fair delivery')", () => {
  it("after the configured time with every attempt failing: inactive, failing, pending cancelled", async () => {
    const w = await failingWorld(() => 503);
    await w.emit();
    expect(await w.engine.runOnce()).toBe(1);
    // Nine minutes of failures later it is still on.
    w.clock.advance(9 * MINUTE);
    await w.emit();
    expect(await w.engine.runOnce()).toBeGreaterThanOrEqual(1);
    expect(await w.view()).toMatchObject({ status: "active", disabled_reason: null });

    w.clock.advance(MINUTE);
    await w.emit();
    expect(await w.engine.runOnce()).toBeGreaterThanOrEqual(1);
    expect(await w.view()).toMatchObject({ status: "inactive", disabled_reason: "failing" });
    const deliveries = await w.storage.raw.deliveries();
    expect(deliveries.map((d) => d.status)).toEqual(Array(3).fill("cancelled"));
    const disabled = w.logged.filter((e) => e.event === "disabled");
    expect(disabled).toEqual([
      {
        event: "disabled",
        organizationId: w.actor.organizationId,
        webhookId: w.webhookId,
        failingSince: "2026-05-01T12:00:00.000Z",
        cancelled: 3,
      },
    ]);

    // Turned on again by hand: the reason is cleared, and recover brings the deliveries back.
    const active = (
      await updateWebhook(w.deps, w.actor, w.webhookId, { status: "active" })
    )._unsafeUnwrap();
    expect(active).toMatchObject({ status: "active", disabled_reason: null });
    const recovered = await recoverWebhook(w.deps, w.actor, w.webhookId, {
      since: "2026-05-01T00:00:00.000Z",
    });
    expect(recovered._unsafeUnwrap()).toEqual({ requeued: 3 });
  });

  it("one success in between starts the count again", async () => {
    let answer = 500;
    const w = await failingWorld(() => answer);
    await w.emit();
    await w.engine.runOnce();
    w.clock.advance(8 * MINUTE);
    answer = 200;
    await w.emit();
    await w.engine.runOnce();
    answer = 500;
    w.clock.advance(8 * MINUTE);
    await w.emit();
    await w.engine.runOnce();
    // Sixteen minutes since the first failure, eight since the success: still on.
    expect(await w.view()).toMatchObject({ status: "active", disabled_reason: null });
    expect(w.logged.some((e) => e.event === "disabled")).toBe(false);
  });

  it("a subscription an operator turned off is not marked failing", async () => {
    const w = await failingWorld(() => 500);
    await w.emit();
    await w.engine.runOnce();
    await updateWebhook(w.deps, w.actor, w.webhookId, { status: "inactive" });
    w.clock.advance(20 * MINUTE);
    expect(await w.view()).toMatchObject({ status: "inactive", disabled_reason: null });
  });
});
