import { describe, expect, it } from "vitest";
import { aDelivery, aUuid } from "../testing/contract/fixtures.js";
import { webhookWorld } from "../testing/webhook-kit.js";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
} from "./subscriptions.js";
import { updateWebhook } from "./update-webhook.js";

const URL_A = "https://hooks.example.com/a";

describe("webhook subscriptions (docs/decisions.md 'Webhook subscription')", () => {
  it("create answers 201's view with a whsec_ signing secret, stored only sealed", async () => {
    const { deps, actor, storage } = await webhookWorld();
    const created = (
      await createWebhook(deps, actor, { url: URL_A, topics: ["message.sent"] })
    )._unsafeUnwrap();
    expect(created).toEqual({
      webhook_id: expect.stringMatching(/^whk_[0-9a-z]{26}$/),
      url: URL_A,
      topics: ["message.sent"],
      status: "active",
      description: null,
      disabled_reason: null,
      created_at: "2026-05-01T12:00:00.000Z",
      updated_at: "2026-05-01T12:00:00.000Z",
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{20,}$/),
    });
    const stored = await storage.raw.webhook(created.webhook_id);
    expect(stored?.secretSealed).not.toBe(created.signing_secret);
    expect(deps.secretBox.open(stored?.secretSealed ?? "")).toBe(created.signing_secret);
  });

  it("get and list never show the signing secret; list is the envelope, oldest first", async () => {
    const { deps, actor, clock, addWebhook } = await webhookWorld();
    const a = await addWebhook({ url: URL_A });
    clock.advance(1);
    const b = await addWebhook({
      url: URL_A,
      topics: ["message.seen"],
      status: "inactive",
      description: "second",
    });
    const one = (await getWebhook(deps, actor, a.webhook_id))._unsafeUnwrap();
    expect(one).not.toHaveProperty("signing_secret");
    const list = (await listWebhooks(deps, actor))._unsafeUnwrap();
    expect(list.meta).toEqual({ has_more: false, next_cursor: null });
    expect(list.data.map((w) => w.webhook_id)).toEqual([a.webhook_id, b.webhook_id]);
    for (const item of list.data) expect(item).not.toHaveProperty("signing_secret");
    expect(list.data[1]).toMatchObject({ status: "inactive", description: "second" });
  });

  it("every input problem is a 400 issue with its path, the URL policy's included", async () => {
    const { deps, actor } = await webhookWorld();
    const error = (
      await createWebhook(deps, actor, {
        url: "http://insecure.example.com",
        topics: ["message.sent", "message.sent"],
        status: "paused",
        description: "x".repeat(501),
        extra: true,
      })
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "validation", code: "validation_failed" });
    const paths = error.type === "validation" ? error.issues.map((i) => i.path).sort() : [];
    expect(paths).toEqual(["description", "extra", "status", "topics", "url"]);

    for (const input of [
      {},
      { url: URL_A, topics: [] },
      { url: URL_A, topics: ["message.opened"] },
      { url: 42, topics: ["message.sent"] },
    ]) {
      expect((await createWebhook(deps, actor, input))._unsafeUnwrapErr().type).toBe("validation");
    }
  });

  it("PATCH changes any subset, moves updated_at, and checks a new URL with the policy", async () => {
    const { deps, actor, clock, addWebhook } = await webhookWorld();
    const w = await addWebhook({ url: URL_A });
    clock.advance(1000);
    const updated = (
      await updateWebhook(deps, actor, w.webhook_id, { description: "orders" })
    )._unsafeUnwrap();
    expect(updated).toMatchObject({
      url: URL_A,
      topics: ["message.sent"],
      status: "active",
      description: "orders",
      created_at: w.created_at,
      updated_at: "2026-05-01T12:00:01.000Z",
    });
    const refused = (
      await updateWebhook(deps, actor, w.webhook_id, { url: "http://x.example.com" })
    )._unsafeUnwrapErr();
    expect(refused.type === "validation" && refused.issues[0]?.path).toBe("url");
    expect(
      (await updateWebhook(deps, actor, w.webhook_id, { secret: "x" }))._unsafeUnwrapErr().type,
    ).toBe("validation");
  });

  it("any id the organization cannot see is 404 webhook_not_found, on every operation", async () => {
    const { deps, actor } = await webhookWorld();
    const other = await webhookWorld();
    const theirs = await other.addWebhook({ url: URL_A });
    for (const id of ["nope", "whk_00000000000000000000000000", theirs.webhook_id]) {
      for (const result of [
        await getWebhook(deps, actor, id),
        await updateWebhook(deps, actor, id, { description: "x" }),
        await deleteWebhook(deps, actor, id),
        await rotateWebhookSecret(deps, actor, id),
      ]) {
        expect(result._unsafeUnwrapErr()).toMatchObject({
          type: "not_found",
          code: "webhook_not_found",
        });
      }
    }
  });

  it("rotate-secret answers a new secret once and replaces the stored one at once", async () => {
    const { deps, actor, storage, addWebhook } = await webhookWorld();
    const w = await addWebhook({ url: URL_A });
    const rotated = (await rotateWebhookSecret(deps, actor, w.webhook_id))._unsafeUnwrap();
    expect(rotated.signing_secret).toMatch(/^whsec_/);
    expect(rotated.signing_secret).not.toBe(w.signing_secret);
    const stored = await storage.raw.webhook(w.webhook_id);
    expect(deps.secretBox.open(stored?.secretSealed ?? "")).toBe(rotated.signing_secret);
  });

  it("deleting answers nothing, makes it 404, and cancels its pending deliveries", async () => {
    const { deps, actor, storage, org, addWebhook } = await webhookWorld();
    const w = await addWebhook({ url: URL_A });
    const pending = aDelivery({
      organizationId: org.organization.id,
      eventId: aUuid(),
      destination: { kind: "subscription", webhookId: w.webhook_id },
    });
    await storage.deliveries.insert(pending);
    expect((await deleteWebhook(deps, actor, w.webhook_id)).isOk()).toBe(true);
    expect((await getWebhook(deps, actor, w.webhook_id)).isErr()).toBe(true);
    expect((await storage.raw.delivery(pending.id))?.status).toBe("cancelled");
  });

  it("deactivating cancels its pending deliveries; other subscriptions' stay pending", async () => {
    const { deps, actor, storage, org, addWebhook } = await webhookWorld();
    const w = await addWebhook({ url: URL_A });
    const v = await addWebhook({ url: URL_A, topics: ["message.seen"] });
    const mine = aDelivery({
      organizationId: org.organization.id,
      eventId: aUuid(),
      destination: { kind: "subscription", webhookId: w.webhook_id },
    });
    const theirs = aDelivery({
      organizationId: org.organization.id,
      eventId: aUuid(),
      destination: { kind: "subscription", webhookId: v.webhook_id },
    });
    await storage.deliveries.insert(mine);
    await storage.deliveries.insert(theirs);
    await updateWebhook(deps, actor, w.webhook_id, { status: "inactive" });
    expect((await storage.raw.delivery(mine.id))?.status).toBe("cancelled");
    expect((await storage.raw.delivery(theirs.id))?.status).toBe("pending");
  });
});
