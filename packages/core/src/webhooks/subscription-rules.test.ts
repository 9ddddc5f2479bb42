import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WebhookTopic } from "../ports.js";
import { webhookWorld } from "../testing/webhook-kit.js";
import { createWebhook, listWebhooks } from "./subscriptions.js";
import { updateWebhook } from "./update-webhook.js";
import { TOPICS } from "./webhook-input.js";

const URL_A = "https://hooks.example.com/a";
const topic = (i: number): WebhookTopic => TOPICS[i % TOPICS.length] as WebhookTopic;

type World = Awaited<ReturnType<typeof webhookWorld>>;

const create = async (w: World, topics: WebhookTopic[], status: "active" | "inactive" = "active") =>
  createWebhook(w.deps, w.actor, { url: URL_A, topics, status });

/** The organization's state must always satisfy both rules of docs/decisions.md "Webhook subscription". */
async function expectRulesHold(w: World): Promise<void> {
  const active = (await listWebhooks(w.deps, w.actor))
    ._unsafeUnwrap()
    .data.filter((x) => x.status === "active");
  expect(active.length).toBeLessThanOrEqual(5);
  const topics = active.flatMap((x) => x.topics);
  expect(new Set(topics).size).toBe(topics.length);
}

describe("global webhook rules (docs/api.md), checked under the organization's lock", () => {
  it("at most 5 active: the 6th is 409 webhook_limit_reached naming the 5 active ones", async () => {
    const w = await webhookWorld();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(w, [topic(i)]))._unsafeUnwrap().webhook_id);
    const error = (await create(w, [topic(5)]))._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "conflict", code: "webhook_limit_reached" });
    expect(error.type === "conflict" && error.conflicts?.map((c) => c.id).sort()).toEqual(
      [...ids].sort(),
    );
  });

  it("no topic on two active webhooks: 409 webhook_topic_overlap naming webhook and topic", async () => {
    const w = await webhookWorld();
    const a = (await create(w, ["message.sent", "message.seen"]))._unsafeUnwrap();
    const b = (await create(w, ["message.failed"]))._unsafeUnwrap();
    const error = (
      await create(w, ["message.delivered", "message.seen", "message.failed"])
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "conflict", code: "webhook_topic_overlap" });
    if (error.type !== "conflict") throw new Error("expected a conflict");
    expect(error.conflicts).toEqual([
      { id: a.webhook_id, reason: "also subscribes to message.seen" },
      { id: b.webhook_id, reason: "also subscribes to message.failed" },
    ]);
    expect(error.issues?.map((i) => i.path)).toEqual(["topics[1]", "topics[2]"]);
    expect(error.message).toContain(a.webhook_id);
  });

  it("inactive webhooks count toward neither rule", async () => {
    const w = await webhookWorld();
    for (let i = 0; i < 5; i++) (await create(w, [topic(i)]))._unsafeUnwrap();
    for (let i = 0; i < 3; i++) {
      expect((await create(w, ["message.sent"], "inactive")).isOk()).toBe(true);
    }
  });

  it("activating an inactive webhook checks both rules; deactivating frees its place", async () => {
    const w = await webhookWorld();
    const a = (await create(w, ["message.sent"]))._unsafeUnwrap();
    const b = (await create(w, ["message.sent"], "inactive"))._unsafeUnwrap();
    const refused = (
      await updateWebhook(w.deps, w.actor, b.webhook_id, { status: "active" })
    )._unsafeUnwrapErr();
    expect(refused).toMatchObject({
      code: "webhook_topic_overlap",
      conflicts: [{ id: a.webhook_id, reason: "also subscribes to message.sent" }],
    });
    await updateWebhook(w.deps, w.actor, a.webhook_id, { status: "inactive" });
    expect((await updateWebhook(w.deps, w.actor, b.webhook_id, { status: "active" })).isOk()).toBe(
      true,
    );
    await expectRulesHold(w);
  });

  it("an active webhook changing its topics is checked; an unchanged one is not re-refused", async () => {
    const w = await webhookWorld();
    (await create(w, ["message.sent"]))._unsafeUnwrap();
    const b = (await create(w, ["message.seen"]))._unsafeUnwrap();
    expect(
      (
        await updateWebhook(w.deps, w.actor, b.webhook_id, {
          topics: ["message.seen", "message.sent"],
        })
      )._unsafeUnwrapErr(),
    ).toMatchObject({ code: "webhook_topic_overlap" });
    expect(
      (
        await updateWebhook(w.deps, w.actor, b.webhook_id, { status: "active", description: "x" })
      ).isOk(),
    ).toBe(true);
  });

  it("an inactive webhook may change topics freely while inactive", async () => {
    const w = await webhookWorld();
    (await create(w, ["message.sent"]))._unsafeUnwrap();
    const b = (await create(w, ["message.seen"], "inactive"))._unsafeUnwrap();
    expect(
      (await updateWebhook(w.deps, w.actor, b.webhook_id, { topics: ["message.sent"] })).isOk(),
    ).toBe(true);
  });

  it("at most 100 subscriptions, active or not: the 101st is 409 webhook_subscription_limit", async () => {
    const w = await webhookWorld();
    for (let i = 0; i < 100; i++) (await create(w, ["message.sent"], "inactive"))._unsafeUnwrap();
    expect((await create(w, ["message.sent"], "inactive"))._unsafeUnwrapErr()).toMatchObject({
      type: "conflict",
      code: "webhook_subscription_limit",
    });
  });

  it("20 concurrent activations never leave more than 5 active or an overlapping topic", async () => {
    const w = await webhookWorld();
    const inactive = [];
    // Two of each single topic plus pairs: many activations compete for the same topics.
    for (let i = 0; i < 20; i++) {
      const topics = i % 3 === 0 ? [topic(i), topic(i + 1)] : [topic(i)];
      inactive.push((await create(w, topics, "inactive"))._unsafeUnwrap());
    }
    const results = await Promise.all(
      inactive.map((x) => updateWebhook(w.deps, w.actor, x.webhook_id, { status: "active" })),
    );
    expect(results.filter((r) => r.isOk()).length).toBeGreaterThan(0);
    for (const r of results) {
      if (r.isErr())
        expect(["webhook_limit_reached", "webhook_topic_overlap"]).toContain(r.error.code);
    }
    await expectRulesHold(w);
  });

  it("property: any concurrent mix of creates and activations keeps both rules", async () => {
    const topicSet = fc.uniqueArray(fc.constantFrom(...TOPICS), { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ topics: topicSet, active: fc.boolean() }), { maxLength: 12 }),
        fc.array(topicSet, { maxLength: 8 }),
        async (existing, created) => {
          const w = await webhookWorld();
          const stored = [];
          for (const e of existing)
            stored.push((await create(w, e.topics, "inactive"))._unsafeUnwrap());
          await Promise.all([
            ...stored.map((s, i) =>
              existing[i]?.active
                ? updateWebhook(w.deps, w.actor, s.webhook_id, { status: "active" })
                : Promise.resolve(null),
            ),
            ...created.map((topics) => create(w, topics)),
          ]);
          await expectRulesHold(w);
        },
      ),
      { numRuns: 60 },
    );
  });
});
