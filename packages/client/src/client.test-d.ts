import type { DomainError } from "@tidings/core";
import { describe, expectTypeOf, it } from "vitest";
import { Tidings } from "./client.js";
import { type ServerErrorCode, TidingsError } from "./errors.js";
import type { PageIterator } from "./pagination.js";
import type { MessageEvent, Profile, SendResult, WebhookWithSecret } from "./types.js";
import { verifyWebhook } from "./verify-webhook.js";

/** What the compiler alone checks: the inputs the API refuses do not compile, outputs are typed. */

const tidings = new Tidings({ token: "key:secret", baseUrl: "https://tidings.example.com" });
const campaign_id = "cmp_1";

describe("inputs", () => {
  it("refuses a wrong field, a missing required field and a wrong enum value", () => {
    void tidings.profiles.create({
      phone_number: "+14155550101",
      // @ts-expect-error no such field: the API refuses unknown fields
      nickname: "Ada",
    });
    // @ts-expect-error phone_number is required to create a profile
    void tidings.profiles.create({ first_name: "Ada" });
    void tidings.messages.send({
      campaign_id,
      // @ts-expect-error recipient.type is phone_number, email or public_id
      recipient: { type: "fax", value: "+14155550101" },
    });
    // @ts-expect-error recipient is required
    void tidings.messages.send({ campaign_id });
    void tidings.messages.send({
      campaign_id,
      recipient: { type: "phone_number", value: "+14155550101" },
      // @ts-expect-error params map names to strings
      params: 42,
    });
    void tidings.webhooks.create({
      url: "https://example.com/hooks",
      // @ts-expect-error not a topic
      topics: ["message.read"],
    });
    // @ts-expect-error a campaign's status is active or inactive
    void tidings.campaigns.list({ status: "paused" });
    // @ts-expect-error the list of profiles filters by phone_number or email, not by name
    void tidings.profiles.list({ first_name: "Ada" });
  });

  it("accepts what the API takes, optional fields left out", () => {
    void tidings.webhooks.create({ url: "https://example.com/hooks", topics: ["message.failed"] });
    void tidings.messages.send(
      { campaign_id, recipient: { type: "email", value: "ada@example.com" } },
      { idempotencyKey: "order-7", timeoutMs: 5_000 },
    );
  });
});

describe("outputs", () => {
  it("types each answer, lists as page iterators", () => {
    expectTypeOf(tidings.profiles.create).returns.resolves.toEqualTypeOf<Profile>();
    expectTypeOf(tidings.messages.send).returns.resolves.toEqualTypeOf<SendResult>();
    expectTypeOf(tidings.webhooks.rotateSecret).returns.resolves.toEqualTypeOf<WebhookWithSecret>();
    expectTypeOf(tidings.profiles.delete).returns.resolves.toBeVoid();
    expectTypeOf(tidings.profiles.list).returns.toEqualTypeOf<PageIterator<Profile>>();
    expectTypeOf<SendResult["status"]>().toEqualTypeOf<"sent" | "failed" | "scheduled">();
  });

  it("narrows a verified webhook to its event, and an event by its topic", async () => {
    const result = await verifyWebhook("{}", {}, "whsec_x");
    if (result.ok) {
      if (result.event.topic === "webhook.test") {
        expectTypeOf(result.event.data).toEqualTypeOf<{ webhook_id: string; message: string }>();
      } else if (result.event.topic === "profile.erased") {
        expectTypeOf(result.event.data).toEqualTypeOf<{ public_id: string; erased_at: string }>();
      } else {
        expectTypeOf(result.event).toEqualTypeOf<MessageEvent>();
      }
    } else {
      expectTypeOf(result.reason).toExtend<string>();
    }
  });
});

describe("errors", () => {
  it("names every code a server domain error can carry", () => {
    expectTypeOf<DomainError["code"]>().toExtend<ServerErrorCode>();
  });

  it("narrows by code", () => {
    const error: unknown = null;
    if (TidingsError.is(error, "rate_limited", "storage_busy")) {
      expectTypeOf(error.code).toEqualTypeOf<"rate_limited" | "storage_busy">();
      expectTypeOf(error.retryAfter).toEqualTypeOf<number | null>();
    }
    // @ts-expect-error not a code the API answers
    TidingsError.is(error, "rate_limitd");
  });
});
