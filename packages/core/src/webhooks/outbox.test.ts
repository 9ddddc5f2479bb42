import { describe, expect, it } from "vitest";
import type { MessageRecord } from "../ports.js";
import { isUuidV7 } from "../support/ids.js";
import { aMessage } from "../testing/contract/fixtures.js";
import { webhookWorld } from "../testing/webhook-kit.js";
import { destinationKey } from "./delivery-destination.js";
import { recordEvent } from "./outbox.js";
import { updateWebhook } from "./update-webhook.js";

type World = Awaited<ReturnType<typeof webhookWorld>>;

const subscribe = async (
  w: World,
  topics: MessageRecord["status"][],
  url = "https://s.example.com",
) => (await w.addWebhook({ url, topics: topics.map((t) => `message.${t}`) })).webhook_id;

const emit = (w: World, message: MessageRecord, topic: "message.sent" | "message.delivered") =>
  w.storage.transaction((tx) => recordEvent(tx, w.deps, message, topic, null));

describe("routing and the outbox (docs/api.md Webhook events, docs/decisions.md 'Delivery id')", () => {
  it("a message with webhook_url sends every event only there, even with matching subscriptions", async () => {
    const w = await webhookWorld();
    await subscribe(w, ["sent"]);
    const message = await w.message({ webhookUrl: "https://own.example.com/hook" });
    await emit(w, message, "message.sent");
    const deliveries = await w.storage.raw.deliveries();
    expect(deliveries.map((d) => d.destination)).toEqual([
      { kind: "message", url: "https://own.example.com/hook", apiKeyId: message.apiKeyId },
    ]);
    expect(deliveries.map((d) => d.destinationKey)).toEqual([
      `${message.organizationId} https://own.example.com`,
    ]);
  });

  it("without webhook_url an event goes to the active subscription whose topics include it", async () => {
    const w = await webhookWorld();
    const sent = await subscribe(w, ["sent", "failed"]);
    await subscribe(w, ["delivered"]);
    const inactive = (await w.addWebhook({ url: "https://i.example.com", status: "inactive" }))
      .webhook_id;
    const message = await w.message();
    await emit(w, message, "message.sent");
    const deliveries = await w.storage.raw.deliveries();
    expect(deliveries.map((d) => d.destination)).toEqual([
      { kind: "subscription", webhookId: sent },
    ]);
    expect(deliveries.map((d) => d.destinationKey)).toEqual([
      `${message.organizationId} https://s.example.com`,
    ]);
    expect(deliveries.some((d) => JSON.stringify(d.destination).includes(inactive))).toBe(false);
  });

  it("an event no subscription wants is recorded with no delivery", async () => {
    const w = await webhookWorld();
    await subscribe(w, ["delivered"]);
    const message = await w.message();
    const event = await emit(w, message, "message.sent");
    expect((await w.storage.raw.events(message.id)).map((e) => e.id)).toContain(event.id);
    expect(await w.storage.raw.deliveries()).toEqual([]);
  });

  it("routing is decided when the event happens: a later change affects later events only", async () => {
    const w = await webhookWorld();
    const first = await subscribe(w, ["sent", "delivered"]);
    const message = await w.message();
    await emit(w, message, "message.sent");
    await updateWebhook(w.deps, w.actor, first, { topics: ["message.sent"] });
    const second = await subscribe(w, ["delivered"], "https://second.example.com");
    await emit(w, message, "message.delivered");
    const deliveries = await w.storage.raw.deliveries();
    expect(deliveries.map((d) => [d.topic, d.destination])).toEqual([
      ["message.sent", { kind: "subscription", webhookId: first }],
      ["message.delivered", { kind: "subscription", webhookId: second }],
    ]);
  });

  it("each delivery is pending, due now, with a UUID v7 id that is also the body's id", async () => {
    const w = await webhookWorld();
    await subscribe(w, ["sent"]);
    const message = await w.message({ clientReference: "order-42", channel: "viber" });
    const event = await emit(w, message, "message.sent");
    const [delivery] = await w.storage.raw.deliveries();
    if (!delivery) throw new Error("expected a delivery");
    expect(isUuidV7(delivery.id)).toBe(true);
    expect(delivery).toMatchObject({
      eventId: event.id,
      messageId: message.id,
      status: "pending",
      attempts: 0,
      nextAttemptAt: "2026-05-01T12:00:00.000Z",
    });
    expect(JSON.parse(delivery.payload)).toEqual({
      id: delivery.id,
      topic: "message.sent",
      created_at: "2026-05-01T12:00:00.000Z",
      data: {
        message_id: message.id,
        campaign_id: message.campaignId,
        client_reference: "order-42",
        channel: "viber",
        status: "sent",
        recipient: { public_id: message.profileId, phone_number: message.phoneNumber },
        error: null,
      },
    });
  });

  it("the event and its deliveries commit with the caller's transaction or not at all", async () => {
    const w = await webhookWorld();
    await subscribe(w, ["sent"]);
    await subscribe(w, ["delivered"], "https://two.example.com");
    const message = aMessage({
      organizationId: w.org.organization.id,
      apiKeyId: w.org.apiKey.id,
      campaignId: w.org.campaign.id,
      profileId: w.org.profile.id,
    });
    w.storage.failNext("messages.insertEvent");
    await expect(
      w.storage.transaction(async (tx) => {
        await tx.messages.insert(message);
        await recordEvent(tx, w.deps, message, "message.sent", null);
      }),
    ).rejects.toThrow(/injected failure/);
    expect(await w.storage.raw.message(message.id)).toBeNull();
    expect(await w.storage.raw.events(message.id)).toEqual([]);
    expect(await w.storage.raw.deliveries()).toEqual([]);
  });

  it("destinationKey: the organization and the origin, so one host's paths and subscriptions share slots", () => {
    const key = (url: string) => destinationKey("org_a", url);
    expect(key("https://Hooks.Example.com/a?x=1")).toBe("org_a https://hooks.example.com");
    expect(key("https://hooks.example.com:443/b")).toBe("org_a https://hooks.example.com");
    expect(key("https://hooks.example.com:8443/a")).toBe("org_a https://hooks.example.com:8443");
    expect(key("http://hooks.example.com/a")).toBe("org_a http://hooks.example.com");
    expect(destinationKey("org_b", "https://hooks.example.com/a")).toBe(
      "org_b https://hooks.example.com",
    );
    expect(key("not a url")).toBe("org_a not a url");
  });

  it("a PATCH moving a subscription to another host moves its pending deliveries' key with it", async () => {
    const w = await webhookWorld();
    const webhookId = await subscribe(w, ["sent"], "https://old.example.com/in");
    const message = await w.message();
    await emit(w, message, "message.sent");
    const keyOf = async () => (await w.storage.raw.deliveries()).map((d) => d.destinationKey);
    const org = w.actor.organizationId;
    expect(await keyOf()).toEqual([`${org} https://old.example.com`]);
    // Another path on the same host: the same destination.
    await updateWebhook(w.deps, w.actor, webhookId, { url: "https://old.example.com/other" });
    expect(await keyOf()).toEqual([`${org} https://old.example.com`]);
    await updateWebhook(w.deps, w.actor, webhookId, { url: "https://new.example.com:8443/in" });
    expect(await keyOf()).toEqual([`${org} https://new.example.com:8443`]);
  });
});
