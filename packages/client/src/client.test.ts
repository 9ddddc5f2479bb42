import { servedOpenApiDocument } from "@tidings/adapter-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../server/src/testing/eventually.js";
import { Tidings } from "./client.js";
import { TidingsError } from "./errors.js";
import { startDroppingProxy, startRawReceiver } from "./testing/receivers.js";
import { type CreatedKey, type ServedTidings, serveTidings } from "./testing/served.js";
import type { Campaign, MessageEvent } from "./types.js";
import { verifyWebhook } from "./verify-webhook.js";

/**
 * The client against a real `tidings serve` on SQLite, shared by this file's cases: the
 * quickstart with its webhooks verified by the client's own `verifyWebhook`, every resource,
 * a walk over 250 profiles, a 429 waited out, and a send whose answer was lost.
 */

const SETUP_TIMEOUT_MS = 120_000;

let served: ServedTidings;
let org: string;
let key: CreatedKey;
let tidings: Tidings;
let campaign: Campaign;
let receiver: Awaited<ReturnType<typeof startRawReceiver>>;

/** The webhook requests the receiver got for one message, verified with `secret`. */
async function verifiedEvents(messageId: string, secret: string) {
  const events: MessageEvent[] = [];
  for (const request of receiver.received) {
    const result = await verifyWebhook(request.body, request.headers, secret);
    if (
      result.ok &&
      result.event.topic !== "webhook.test" &&
      result.event.topic !== "profile.erased"
    ) {
      if (result.event.data.message_id === messageId) events.push(result.event);
    }
  }
  return events;
}

beforeAll(async () => {
  // Three sends per two seconds per key, so a burst meets 429 with a short Retry-After.
  [served, receiver] = await Promise.all([
    serveTidings({ TIDINGS_SEND_RATE_LIMIT: "3/2s" }),
    startRawReceiver(),
  ]);
  org = await served.newOrg();
  key = await served.newKey(org);
  tidings = new Tidings({ token: key.token, baseUrl: served.baseUrl });
  campaign = await tidings.campaigns.create({
    name: "Login code",
    channel: "sms",
    category: "otp",
    sender: "Acme",
    template: "Your Acme code is {{pin}}",
    status: "active",
  });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await served?.stop();
  await receiver?.close();
});

describe("@tidings/client against tidings serve", () => {
  it("was generated from the document the server serves (here in development, with the sandbox's endpoints)", async () => {
    // `gen` builds the document in-process; this is the check that it is the served one.
    const document = await (await fetch(`${served.baseUrl}/openapi.json`)).json();
    expect(document).toEqual(
      JSON.parse(JSON.stringify(servedOpenApiDocument({ sandbox: true, dev: true }))),
    );
  });

  it("runs the quickstart: a profile, a send, and its webhooks verified", async () => {
    const profile = await tidings.profiles.create({
      phone_number: "+1 415 555 0101",
      first_name: "Ada",
      last_name: "Lovelace",
    });
    expect(profile).toMatchObject({
      public_id: expect.stringMatching(/^prf_/),
      phone_number: "+14155550101",
      full_name: "Ada Lovelace",
      source: "api",
    });
    const sent = await tidings.messages.send({
      campaign_id: campaign.campaign_id,
      recipient: { type: "public_id", value: profile.public_id },
      params: { pin: "123456" },
      client_reference: "login-42",
      webhook_url: `${receiver.url}/hooks`,
    });
    expect(sent).toMatchObject({ status: "sent", client_reference: "login-42", error: null });

    // Signed with the key's webhook_signing_secret, verified by the client alone.
    const events = await eventually("message.delivered, verified", async () => {
      const verified = await verifiedEvents(sent.message_id, key.webhook_signing_secret);
      return verified.some((event) => event.topic === "message.delivered") ? verified : undefined;
    });
    expect(events[0]).toMatchObject({
      topic: "message.sent",
      data: {
        message_id: sent.message_id,
        campaign_id: campaign.campaign_id,
        client_reference: "login-42",
        recipient: { public_id: profile.public_id, phone_number: "+14155550101" },
      },
    });
    // The same requests do not verify under another secret.
    expect(await verifiedEvents(sent.message_id, "whsec_not_this_one")).toEqual([]);

    const message = await tidings.messages.get(sent.message_id);
    expect(message).toMatchObject({ message_id: sent.message_id, client_reference: "login-42" });
    expect(message.events.map((event) => event.topic)).toContain("message.sent");
    const listed = await tidings.messages.list({ client_reference: "login-42" }).page();
    expect(listed.data.map((m) => m.message_id)).toEqual([sent.message_id]);
  });

  it("exports a deleted profile's person, then erases them by number", async () => {
    const created = await tidings.profiles.create({
      phone_number: "+14155550177",
      first_name: "Katherine",
      sms_marketing_consent: true,
    });
    await tidings.profiles.delete(created.public_id);
    const exported = await tidings.profiles.export(created.public_id);
    expect(exported.profile).toMatchObject({ public_id: created.public_id, status: "inactive" });
    expect(exported.consent_history).toHaveLength(1);
    const byNumber = await tidings.privacy.export({ phone_number: "+14155550177" });
    expect(byNumber.profile?.public_id).toBe(created.public_id);
    const erased = await tidings.privacy.erase({ phone_number: "+14155550177" });
    expect(erased.profile_ids).toEqual([created.public_id]);
    expect(erased.erased.profiles).toBe(1);
    expect((await tidings.profiles.erase(created.public_id)).erased.profiles).toBe(0);
    expect((await tidings.profiles.export(created.public_id)).profile?.phone_number).toBeNull();
  });

  it("reads, finds, updates and deletes profiles; a bad body is a TidingsError with issues", async () => {
    const created = await tidings.profiles.create({
      phone_number: "+14155550102",
      email: "grace@example.com",
    });
    expect(await tidings.profiles.get(created.public_id)).toEqual({
      ...created,
      suppressed: { viber: false, sms: false },
    });
    const taken = await tidings.profiles
      .create({ phone_number: "+1 (415) 555-0102" })
      .catch((error: unknown) => error);
    expect(TidingsError.is(taken, "phone_number_taken") && taken.status).toBe(409);
    const updated = await tidings.profiles.update(created.public_id, {
      first_name: "Grace",
      sms_marketing_consent: true,
    });
    expect(updated).toMatchObject({ first_name: "Grace", sms_marketing_consent: true });
    const found = await tidings.profiles.list({ email: "grace@example.com" }).page();
    expect(found.data.map((p) => p.public_id)).toEqual([created.public_id]);
    await tidings.profiles.delete(created.public_id);
    const gone = await tidings.profiles.get(created.public_id).catch((error: unknown) => error);
    expect(TidingsError.is(gone, "profile_not_found") && gone.status).toBe(404);
    // An id can name no other path, not even by climbing one.
    for (const id of ["..", "a/b", "?x=1"]) {
      const missing = await tidings.profiles.get(id).catch((error: unknown) => error);
      expect(TidingsError.is(missing, "profile_not_found")).toBe(true);
    }

    const refused = await tidings.profiles
      .create({ phone_number: "nope", first_name: "A" }, { requestId: "client-test-1" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TidingsError);
    expect(refused).toMatchObject({
      status: 400,
      code: "validation_failed",
      requestId: "client-test-1",
      retryAfter: null,
    });
    const paths = (refused as TidingsError).issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(["first_name", "phone_number"]);
  });

  it("manages campaigns: list, get, update, deactivate, activate", async () => {
    const draft = await tidings.campaigns.create({
      name: "Shipping",
      channel: "sms",
      category: "transactional",
      sender: "Acme",
      template: "Order {{order}} shipped",
    });
    expect(draft.status).toBe("inactive");
    const ids: string[] = [];
    for await (const c of tidings.campaigns.list({ limit: 1 })) ids.push(c.campaign_id);
    expect(ids).toEqual([draft.campaign_id, campaign.campaign_id]);
    expect(await tidings.campaigns.get(draft.campaign_id)).toEqual(draft);
    expect(await tidings.campaigns.update(draft.campaign_id, { sender: "AcmeShop" })).toMatchObject(
      {
        sender: "AcmeShop",
      },
    );
    expect((await tidings.campaigns.activate(draft.campaign_id)).status).toBe("active");
    expect((await tidings.campaigns.activate(draft.campaign_id)).status).toBe("active");
    expect((await tidings.campaigns.deactivate(draft.campaign_id)).status).toBe("inactive");
    const inactive = await tidings.campaigns.list({ status: "inactive" }).page();
    expect(inactive.data.map((c) => c.campaign_id)).toEqual([draft.campaign_id]);
  });

  it("holds a send with send_at, lists it as scheduled, cancels it once; a campaign takes a sending window", async () => {
    const sendAt = new Date(Date.now() + 86_400_000).toISOString();
    const held = await tidings.messages.send({
      campaign_id: campaign.campaign_id,
      recipient: { type: "phone_number", value: "+14155550177" },
      params: { pin: "2468" },
      send_at: sendAt,
    });
    expect(held).toMatchObject({ status: "scheduled", error: null });
    expect(Date.parse(held.scheduled_for ?? "")).toBe(Date.parse(sendAt));
    const scheduled = await tidings.messages.list({ status: "scheduled" }).page();
    expect(scheduled.data.map((m) => m.message_id)).toEqual([held.message_id]);
    const cancelled = await tidings.messages.cancel(held.message_id);
    expect(cancelled).toMatchObject({ message_id: held.message_id, status: "cancelled" });
    const again = await tidings.messages.cancel(held.message_id).catch((error: unknown) => error);
    expect(TidingsError.is(again, "message_not_scheduled") && again.status).toBe(409);

    const windowed = await tidings.campaigns.create({
      name: "Offers",
      channel: "sms",
      category: "promotional",
      sender: "Acme",
      template: "Sale {{code}}",
      sending_window: { days: ["mon", "fri"], start: "09:00", end: "24:00" },
    });
    expect(windowed.sending_window).toEqual({
      days: ["mon", "fri"],
      start: "09:00",
      end: "24:00",
      skip_public_holidays: false,
    });
  });

  it("subscribes webhooks, tests and rotates them, and reads and redelivers deliveries", async () => {
    const hook = await tidings.webhooks.create({
      url: `${receiver.url}/org`,
      topics: ["message.sent", "message.delivered"],
      description: "Client test",
    });
    expect(hook.signing_secret).toMatch(/^whsec_/);
    expect((await tidings.webhooks.list()).map((w) => w.webhook_id)).toEqual([hook.webhook_id]);
    expect(await tidings.webhooks.get(hook.webhook_id)).toMatchObject({ status: "active" });

    // A test event, signed with the subscription's secret; after a rotation, only the new one.
    const tests = () =>
      receiver.received.filter((r) => r.headers["x-service-topic"] === "webhook.test");
    expect(await tidings.webhooks.test(hook.webhook_id)).toMatchObject({ success: true });
    const first = tests().at(-1)!;
    expect(await verifyWebhook(first.body, first.headers, hook.signing_secret)).toMatchObject({
      ok: true,
      event: { topic: "webhook.test", data: { webhook_id: hook.webhook_id } },
    });
    const rotated = await tidings.webhooks.rotateSecret(hook.webhook_id);
    expect(rotated.signing_secret).not.toBe(hook.signing_secret);
    await tidings.webhooks.test(hook.webhook_id);
    const second = tests().at(-1)!;
    expect(await verifyWebhook(second.body, second.headers, hook.signing_secret)).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
    expect((await verifyWebhook(second.body, second.headers, rotated.signing_secret)).ok).toBe(
      true,
    );

    // A send without webhook_url goes to the subscription; its deliveries are in the log.
    const sent = await tidings.messages.send({
      campaign_id: campaign.campaign_id,
      recipient: { type: "phone_number", value: "+14155550103" },
      params: { pin: "654321" },
    });
    const delivered = await eventually("the message.delivered delivery to succeed", async () => {
      const page = await tidings.messages.deliveries(sent.message_id).page();
      const found = page.data.find((d) => d.topic === "message.delivered");
      return found?.status === "succeeded" ? found : undefined;
    });
    expect(delivered).toMatchObject({ webhook_id: hook.webhook_id, message_id: sent.message_id });
    const mine = [];
    for await (const d of tidings.webhooks.deliveries(hook.webhook_id)) mine.push(d.delivery_id);
    expect(mine).toContain(delivered.delivery_id);
    const all = await tidings.deliveries.list({ webhook_id: hook.webhook_id }).page();
    expect(all.data.map((d) => d.delivery_id)).toContain(delivered.delivery_id);
    const detail = await tidings.deliveries.get(delivered.delivery_id);
    expect(detail.attempts[0]).toMatchObject({ status_code: 200 });

    const again = await tidings.deliveries.redeliver(delivered.delivery_id);
    expect(again).toMatchObject({ delivery_id: delivered.delivery_id, status: "pending" });
    await eventually("the redelivery", async () =>
      receiver.received.filter((r) => r.headers["x-service-delivery-id"] === delivered.delivery_id)
        .length >= 2
        ? true
        : undefined,
    );
    expect(await tidings.webhooks.recover(hook.webhook_id, new Date(0))).toEqual({ requeued: 0 });

    expect(await tidings.webhooks.update(hook.webhook_id, { status: "inactive" })).toMatchObject({
      status: "inactive",
    });
    await tidings.webhooks.delete(hook.webhook_id);
    expect(await tidings.webhooks.list()).toEqual([]);
  });

  it("walks every cursor over 250 profiles; page() fetches one page", async () => {
    // An organization of its own, so nothing else lands in its list.
    const other = new Tidings({
      token: (await served.newKey(await served.newOrg(), "profiles:read,profiles:write")).token,
      baseUrl: served.baseUrl,
    });
    const phones = Array.from({ length: 250 }, (_, i) => `+1415556${String(i).padStart(4, "0")}`);
    for (let at = 0; at < phones.length; at += 25) {
      await Promise.all(
        phones.slice(at, at + 25).map((phone) => other.profiles.create({ phone_number: phone })),
      );
    }
    const first = await other.profiles.list({ limit: 100 }).page();
    expect(first.data).toHaveLength(100);
    expect(first.meta.has_more).toBe(true);

    const seen: string[] = [];
    for await (const profile of other.profiles.list({ limit: 100 }))
      seen.push(profile.phone_number);
    expect(seen.sort()).toEqual([...phones].sort());
    let pages = 0;
    for await (const page of other.profiles.list({ limit: 100 }).pages())
      pages += page.data.length > 0 ? 1 : 0;
    expect(pages).toBe(3);
    // A walk can start from a cursor a previous one stopped at.
    const rest = other.profiles.list({ limit: 100, cursor: first.meta.next_cursor ?? "" });
    let after = 0;
    for await (const _ of rest) after += 1;
    expect(after).toBe(150);
  });

  it("waits out a 429 for its Retry-After and then sends", async () => {
    const statuses: Array<{ status: number; retryAfter: string | null; key: string | null }> = [];
    const watched = new Tidings({
      token: (await served.newKey(org, "messages:send")).token,
      baseUrl: served.baseUrl,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const headers = new Headers(init?.headers);
        statuses.push({
          status: response.status,
          retryAfter: response.headers.get("retry-after"),
          key: headers.get("idempotency-key"),
        });
        return response;
      },
    });
    const send = (i: number) =>
      watched.messages.send({
        campaign_id: campaign.campaign_id,
        recipient: { type: "phone_number", value: `+1415555020${i}` },
        params: { pin: String(100000 + i) },
      });
    // Four sends one after the other: the fourth meets the limit of three per window.
    for (let i = 0; i < 4; i++) expect((await send(i)).status).toBe("sent");
    const limited = statuses.findIndex((s) => s.status === 429);
    expect(limited).toBe(3);
    expect(Number(statuses[limited]?.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(statuses[limited + 1]).toMatchObject({ status: 200, key: statuses[limited]?.key });
  });

  it("retries a send whose answer was lost with the same key; the server acts once", async () => {
    const proxy = await startDroppingProxy(served.baseUrl, (r) => r.url === "/v1/messages/send");
    try {
      const flaky = new Tidings({ token: key.token, baseUrl: proxy.url });
      const sent = await flaky.messages.send({
        campaign_id: campaign.campaign_id,
        recipient: { type: "phone_number", value: "+14155550199" },
        params: { pin: "111111" },
        client_reference: "dropped-1",
      });
      const [lost] = proxy.dropped;
      expect(lost?.status).toBe(200);
      // The client saw the server's one answer, replayed under the same Idempotency-Key.
      expect(sent).toEqual(JSON.parse(lost?.body ?? "{}"));
      const sends = proxy.forwarded.filter((r) => r.url === "/v1/messages/send");
      expect(sends).toHaveLength(2);
      expect(sends[1]?.headers["idempotency-key"]).toBe(sends[0]?.headers["idempotency-key"]);
      const messages = await tidings.messages.list({ client_reference: "dropped-1" }).page();
      expect(messages.data.map((m) => m.message_id)).toEqual([sent.message_id]);
    } finally {
      await proxy.close();
    }
  });
});
