import { signPayload, webhookHeaders } from "@tidings/core";
import { describe, expect, it } from "vitest";
import { verifyWebhook } from "./verify-webhook.js";

/**
 * The client's Web Crypto verification against the server's own signing (core's
 * `webhookHeaders`), so the two cannot drift apart. The real server's webhooks are verified in
 * client.test.ts.
 */

const SECRET = "whsec_client";
const NOW = 1_790_000_000_000;
const body = JSON.stringify({
  id: "0190f5c2-0000-7000-8000-00000000beef",
  topic: "message.delivered",
  created_at: "2026-11-23T09:30:01.000Z",
  data: { message_id: "m1", status: "delivered" },
});
const signed = (overrides: Partial<Parameters<typeof webhookHeaders>[0]> = {}) =>
  webhookHeaders({
    secret: SECRET,
    timestamp: NOW / 1000,
    body,
    topic: "message.delivered",
    deliveryId: "0190f5c2-0000-7000-8000-00000000beef",
    attempt: 2,
    ...overrides,
  });

describe("verifyWebhook", () => {
  it("accepts what the server signs, as a string, bytes, Headers or node:http's object", async () => {
    const headers = signed();
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    for (const [raw, given] of [
      [body, headers],
      [new TextEncoder().encode(body), new Headers(headers)],
      [new TextEncoder().encode(body).buffer, lower],
    ] as const) {
      const result = await verifyWebhook(raw, given, SECRET, { now: NOW + 4_000 });
      expect(result).toEqual({
        ok: true,
        event: JSON.parse(body),
        timestamp: NOW / 1000,
        attempt: 2,
      });
    }
  });

  it("accepts a request with two signatures when one matches (a repeated header)", async () => {
    const headers = signed();
    const other = signPayload("whsec_other", NOW / 1000, body);
    const node = {
      ...headers,
      "X-Service-Signature": [other, headers["X-Service-Signature"] ?? ""],
    };
    expect((await verifyWebhook(body, node, SECRET, { now: NOW })).ok).toBe(true);
  });

  it("refuses, with a reason and without throwing, whatever is not signed by this secret now", async () => {
    const reason = async (
      raw: string,
      headers: Record<string, string | string[] | undefined>,
      options = { now: NOW },
      secret = SECRET,
    ) => {
      const result = await verifyWebhook(raw, headers, secret, options);
      return result.ok ? "ok" : result.reason;
    };
    const headers = signed();
    const without = (name: string) => ({ ...headers, [name]: undefined });
    expect(await reason(body, headers, { now: NOW }, "whsec_wrong")).toBe("signature_mismatch");
    expect(await reason(`${body} `, headers)).toBe("signature_mismatch");
    expect(await reason(body, without("X-Service-Signature"))).toBe("missing_signature");
    expect(await reason(body, without("X-Service-Timestamp"))).toBe("missing_timestamp");
    expect(await reason(body, { ...headers, "X-Service-Signature": "sha256=zz" })).toBe(
      "malformed_signature",
    );
    expect(await reason(body, { ...headers, "X-Service-Timestamp": "soon" })).toBe(
      "malformed_timestamp",
    );
    // Five minutes either way by default; a tighter window on request.
    expect(await reason(body, headers, { now: NOW + 301_000 })).toBe("timestamp_out_of_tolerance");
    expect(await reason(body, headers, { now: NOW - 301_000 })).toBe("timestamp_out_of_tolerance");
    expect(await reason(body, headers, { now: NOW + 299_000 })).toBe("ok");
    const tight = await verifyWebhook(body, headers, SECRET, {
      now: NOW + 31_000,
      toleranceSeconds: 30,
    });
    expect(tight).toEqual({ ok: false, reason: "timestamp_out_of_tolerance" });
    // A signed body that is not JSON is refused too, never thrown.
    const text = "not json";
    const textHeaders = webhookHeaders({ ...signedInput(), body: text });
    expect(await reason(text, textHeaders)).toBe("malformed_body");
  });
});

function signedInput() {
  return {
    secret: SECRET,
    timestamp: NOW / 1000,
    body,
    topic: "message.delivered",
    deliveryId: "d",
    attempt: 0,
  };
}
