import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { WebhookRequest } from "../ports.js";
import { fakeTransport, status } from "../testing/fakes.js";
import { webhookWorld } from "../testing/webhook-kit.js";
import { testWebhook } from "./test-webhook.js";

const header = (request: WebhookRequest, name: string): string | undefined =>
  Object.entries(request.headers).find(([k]) => k.toLowerCase() === name)?.[1];

async function world(answer = () => status(200), webhookStatus: "active" | "inactive" = "active") {
  const transport = fakeTransport(answer);
  const w = await webhookWorld(transport);
  const webhook = await w.addWebhook({ status: webhookStatus });
  return { ...w, transport, webhook };
}

describe("test webhook (docs/decisions.md 'Test webhook')", () => {
  it("posts one signed webhook.test event now, even to an inactive subscription", async () => {
    const w = await world(undefined, "inactive");
    const result = (
      await testWebhook(w.deps, w.actor, { webhook_id: w.webhook.webhook_id })
    )._unsafeUnwrap();
    expect(result).toEqual({ success: true, status_code: 200, duration_ms: 5, error: null });
    const [request] = w.transport.requests;
    if (!request) throw new Error("expected a request");
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({
      topic: "webhook.test",
      id: header(request, "x-service-delivery-id"),
    });
    expect(header(request, "x-service-topic")).toBe("webhook.test");
    expect(header(request, "x-service-retry-attempt")).toBe("0");
    const expected = createHmac("sha256", w.webhook.signing_secret)
      .update(`${header(request, "x-service-timestamp")}.${request.body}`)
      .digest("hex");
    expect(header(request, "x-service-signature")).toBe(`sha256=${expected}`);
    // Nothing is queued: no retries, no stored delivery.
    expect(await w.storage.raw.deliveries()).toEqual([]);
  });

  it("a failing or unreachable receiver is a successful answer saying so, with no retry", async () => {
    const failing = await world(() => status(500));
    expect(
      (
        await testWebhook(failing.deps, failing.actor, { webhook_id: failing.webhook.webhook_id })
      )._unsafeUnwrap(),
    ).toMatchObject({ success: false, status_code: 500, error: expect.stringContaining("500") });
    expect(failing.transport.requests).toHaveLength(1);

    const down = await world(() => ({ kind: "error", error: "connection refused", durationMs: 1 }));
    expect(
      (
        await testWebhook(down.deps, down.actor, { webhook_id: down.webhook.webhook_id })
      )._unsafeUnwrap(),
    ).toEqual({ success: false, status_code: null, duration_ms: 1, error: "connection refused" });
  });

  it("an unknown or malformed webhook_id is 404; a bad body is 400", async () => {
    const w = await world();
    for (const id of ["nope", "whk_00000000000000000000000000"]) {
      expect(
        (await testWebhook(w.deps, w.actor, { webhook_id: id }))._unsafeUnwrapErr(),
      ).toMatchObject({
        code: "webhook_not_found",
      });
    }
    expect((await testWebhook(w.deps, w.actor, {}))._unsafeUnwrapErr().type).toBe("validation");
    expect(w.transport.requests).toEqual([]);
  });
});
