import { describe, expect, it } from "vitest";
import type { DomainError } from "../errors.js";
import { isUuidV7 } from "../support/ids.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";

const PHONE = "+14155552671";

const issues = (error: DomainError) =>
  error.type === "validation" ? error.issues.map(({ path, rule }) => ({ path, rule })) : [];

describe("POST /v1/messages/send: the body (docs/api.md Messages)", () => {
  it("campaign_id and recipient are required; every body issue is listed with its path", async () => {
    const w = await sendWorld();
    const error = (
      await w.send({
        recipient: { type: "fax", value: 5 },
        client_reference: "x".repeat(256),
        webhook_url: 7,
      })
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "validation", code: "validation_failed" });
    expect(issues(error).map((issue) => issue.path)).toEqual([
      "campaign_id",
      "recipient.type",
      "recipient.value",
      "client_reference",
      "webhook_url",
    ]);
  });

  it("unknown fields are refused (400)", async () => {
    const w = await sendWorld();
    const campaign = await w.campaign();
    const error = (
      await w.send(sendBody(campaign.campaign_id, PHONE, { priority: "high" }))
    )._unsafeUnwrapErr();
    expect(issues(error)).toEqual([{ path: "priority", rule: "strict_object" }]);
  });

  it("client_reference is at most 255 characters and is echoed; absent, it is null", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const reference = "r".repeat(255);
    const echoed = (
      await w.send(sendBody(campaign_id, PHONE, { client_reference: reference }))
    )._unsafeUnwrap();
    expect(echoed.client_reference).toBe(reference);
    expect((await w.send(sendBody(campaign_id, PHONE)))._unsafeUnwrap().client_reference).toBe(
      null,
    );
  });
});

describe("the campaign of a send (docs/api.md: 404 unknown campaign_id, 400 campaign inactive)", () => {
  it("an unknown, malformed or another organization's campaign_id is 404 campaign_not_found", async () => {
    const w = await sendWorld();
    const elsewhere = await sendWorld();
    const foreign = await elsewhere.campaign();
    for (const id of ["cmp_00000000000000000000000000", "nope", foreign.campaign_id]) {
      expect((await w.send(sendBody(id, PHONE)))._unsafeUnwrapErr()).toMatchObject({
        type: "not_found",
        code: "campaign_not_found",
      });
    }
  });

  it("an inactive campaign cannot be triggered (400 campaign_inactive)", async () => {
    const w = await sendWorld();
    const campaign = await w.campaign({ status: "inactive" });
    const error = (await w.send(sendBody(campaign.campaign_id, PHONE)))._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "validation", code: "campaign_inactive" });
    expect(issues(error)).toEqual([{ path: "campaign_id", rule: "campaign_inactive" }]);
    expect(w.sandbox.dispatched).toEqual([]);
  });
});

describe("params (docs/api.md Viber params)", () => {
  it("a missing required template variable is 400 invalid_params naming it", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const error = (
      await w.send(sendBody(campaign_id, PHONE, { params: { name: "Ada" } }))
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "validation", code: "invalid_params" });
    expect(issues(error)).toEqual([{ path: "params.order", rule: "required" }]);
  });

  it("a Viber value over 125 characters is 400; an SMS value of that length is fine", async () => {
    const w = await sendWorld();
    const viber = await w.campaign();
    const sms = await w.campaign({ channel: "sms" });
    const params = { name: "a".repeat(126), order: "1" };
    const error = (await w.send(sendBody(viber.campaign_id, PHONE, { params })))._unsafeUnwrapErr();
    expect(issues(error)).toEqual([{ path: "params.name", rule: "max_length" }]);
    expect((await w.send(sendBody(sms.campaign_id, PHONE, { params }))).isOk()).toBe(true);
  });

  it("a URL in a Transactional or OTP value is 400; Promotional allows it", async () => {
    const w = await sendWorld();
    const transactional = await w.campaign();
    const otp = await w.campaign({ category: "otp", template: "{{pin}} {{name}}" });
    const promotional = await w.campaign({ category: "promotional" });
    await w.profile({ phone_number: PHONE, viber_marketing_consent: true });
    const link = "example.com/track";
    const refused = (
      await w.send(
        sendBody(transactional.campaign_id, PHONE, { params: { name: link, order: "1" } }),
      )
    )._unsafeUnwrapErr();
    expect(issues(refused)).toEqual([{ path: "params.name", rule: "no_links" }]);
    const otpRefused = (
      await w.send(sendBody(otp.campaign_id, PHONE, { params: { pin: "1234", name: link } }))
    )._unsafeUnwrapErr();
    expect(issues(otpRefused)).toEqual([{ path: "params.name", rule: "no_links" }]);
    const allowed = await w.send(
      sendBody(promotional.campaign_id, PHONE, { params: { name: link, order: "1" } }),
    );
    expect(allowed._unsafeUnwrap().status).toBe("sent");
  });

  it("a missing or empty OTP pin is 400", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign({ category: "otp", template: "Code: {{pin}}" });
    for (const params of [{}, { pin: "" }, { pin: null }]) {
      const error = (await w.send(sendBody(campaign_id, PHONE, { params })))._unsafeUnwrapErr();
      expect(issues(error)).toEqual([{ path: "params.pin", rule: "pin_required" }]);
    }
  });

  it("params, webhook_url and the phone number's problems come in one 400, all listed", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const error = (
      await w.send({
        campaign_id,
        recipient: { type: "phone_number", value: "555-2671" },
        params: { name: "Ada", extra: "x" },
        webhook_url: "http://hooks.example.com",
      })
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "validation", code: "invalid_params" });
    expect(issues(error)).toEqual([
      { path: "params.order", rule: "required" },
      { path: "params.extra", rule: "unknown_param" },
      { path: "webhook_url", rule: "url_policy" },
      { path: "recipient.value", rule: "phone_number" },
    ]);
  });

  it("a webhook_url the URL policy refuses is a 400 at webhook_url", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const error = (
      await w.send(sendBody(campaign_id, PHONE, { webhook_url: "http://10.0.0.1/hook" }))
    )._unsafeUnwrapErr();
    expect(error).toMatchObject({ type: "validation", code: "validation_failed" });
    expect(issues(error)).toEqual([{ path: "webhook_url", rule: "url_policy" }]);
  });
});

describe("the dispatch result and the stored message (docs/api.md Messages)", () => {
  it("answers { message_id (UUID v7), status sent, client_reference, error null }", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const result = (
      await w.send(sendBody(campaign_id, "+1 415 555 2671", { client_reference: "order-1" }))
    )._unsafeUnwrap();
    expect(result).toEqual({
      message_id: expect.any(String),
      status: "sent",
      client_reference: "order-1",
      error: null,
    });
    expect(isUuidV7(result.message_id)).toBe(true);
  });

  it("the stored message carries the rendered body, the campaign's channel and sender, and expires at now + TTL", async () => {
    const w = await sendWorld();
    const campaign = await w.campaign({ ttl_seconds: 600, sender: "Shop" });
    const { message_id } = (
      await w.send(
        sendBody(campaign.campaign_id, PHONE, {
          params: { name: "Ada", order: 1001 },
          webhook_url: "https://hooks.example.com/m",
        }),
      )
    )._unsafeUnwrap();
    const message = await w.storage.raw.message(message_id);
    expect(message).toMatchObject({
      organizationId: w.actor.organizationId,
      apiKeyId: w.actor.apiKeyId,
      campaignId: campaign.campaign_id,
      phoneNumber: PHONE,
      category: "transactional",
      channel: "viber",
      sender: "Shop",
      // Numbers in params become strings.
      body: "Hello Ada, your order 1001 has shipped.",
      webhookUrl: "https://hooks.example.com/m",
      status: "sent",
      error: null,
      createdAt: "2026-05-01T12:00:00.000Z",
      expiresAt: "2026-05-01T12:10:00.000Z",
    });
    expect(w.sandbox.dispatched).toEqual([
      {
        messageId: message_id,
        channel: "viber",
        sender: "Shop",
        phoneNumber: PHONE,
        body: "Hello Ada, your order 1001 has shipped.",
        category: "transactional",
        ttlSeconds: 600,
      },
    ]);
  });

  it("the first lifecycle event is message.sent, stored with its outbox delivery to webhook_url", async () => {
    const w = await sendWorld();
    await w.subscribeAll();
    const { campaign_id } = await w.campaign();
    const { message_id } = (
      await w.send(sendBody(campaign_id, PHONE, { webhook_url: "https://hooks.example.com/m" }))
    )._unsafeUnwrap();
    expect(await w.topics(message_id)).toEqual(["message.sent"]);
    const deliveries = await w.storage.raw.deliveries();
    // webhook_url takes strict precedence over the organization's subscription.
    expect(deliveries.map((d) => [d.topic, d.destination])).toEqual([
      [
        "message.sent",
        { kind: "message", url: "https://hooks.example.com/m", apiKeyId: w.actor.apiKeyId },
      ],
    ]);
  });
});
