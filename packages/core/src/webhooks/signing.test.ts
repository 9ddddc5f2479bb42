import { createHmac } from "node:crypto";
import fc from "fast-check";
import { ok } from "neverthrow";
import { describe, expect, it } from "vitest";
import { signPayload, verifyWebhook, webhookHeaders } from "./signing.js";

const SECRET = "whsec_test-secret";
const T = 1_767_225_600; // 2026-01-01T00:00:00Z in Unix seconds
const NOW = T * 1000;
const BODY = '{"id":"0190a0a0-0000-7000-8000-000000000000","topic":"message.sent"}';

/** The signature docs/decisions.md "Signed bytes" prescribes, written independently of signing.ts. */
const plainHmac = (secret: string, timestamp: number, body: string): string =>
  `sha256=${createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestamp}.${body}`).digest("hex")}`;

const headersFor = (body = BODY, timestamp = T, secret = SECRET) =>
  webhookHeaders({
    secret,
    timestamp,
    body,
    topic: "message.sent",
    deliveryId: "0190a0a0-0000-7000-8000-000000000000",
    attempt: 2,
  });

describe("signPayload (docs/decisions.md: Signed bytes)", () => {
  it("equals a plain HMAC-SHA256 over `{timestamp}.{body}` keyed with the secret's UTF-8 bytes", () => {
    fc.assert(
      fc.property(fc.string(), fc.nat({ max: 2 ** 40 }), fc.string(), (secret, ts, body) => {
        expect(signPayload(secret, ts, body)).toBe(plainHmac(secret, ts, body));
      }),
    );
  });
});

describe("webhookHeaders (docs/api.md Webhook events)", () => {
  it("carries JSON content type, the user agent and the five X-Service headers", () => {
    expect(headersFor()).toEqual({
      "content-type": "application/json",
      "user-agent": "Tidings-Webhooks/1",
      "X-Service-Signature": plainHmac(SECRET, T, BODY),
      "X-Service-Timestamp": String(T),
      "X-Service-Topic": "message.sent",
      "X-Service-Delivery-Id": "0190a0a0-0000-7000-8000-000000000000",
      "X-Service-Retry-Attempt": "2",
    });
  });
});

describe("verifyWebhook", () => {
  it("accepts what webhookHeaders signed, answering the timestamp, delivery id and topic", () => {
    expect(verifyWebhook(BODY, headersFor(), SECRET, { now: NOW })).toEqual(
      ok({
        timestamp: T,
        deliveryId: "0190a0a0-0000-7000-8000-000000000000",
        topic: "message.sent",
      }),
    );
  });

  it("accepts a signature made with a plain HMAC, any body and secret, as string or bytes", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), (secret, body) => {
        const headers = {
          "x-service-signature": plainHmac(secret, T, body),
          "x-service-timestamp": `${T}`,
        };
        expect(verifyWebhook(body, headers, secret, { now: NOW }).isOk()).toBe(true);
        expect(verifyWebhook(Buffer.from(body, "utf8"), headers, secret, { now: NOW }).isOk()).toBe(
          true,
        );
      }),
    );
  });

  it("reads header names case-insensitively, from a plain object or a Fetch Headers", () => {
    const upper = Object.fromEntries(
      Object.entries(headersFor()).map(([k, v]) => [k.toUpperCase(), v]),
    );
    expect(verifyWebhook(BODY, upper, SECRET, { now: NOW }).isOk()).toBe(true);
    expect(verifyWebhook(BODY, new Headers(headersFor()), SECRET, { now: NOW }).isOk()).toBe(true);
    const asArrays = {
      "x-service-signature": [plainHmac(SECRET, T, BODY)],
      "x-service-timestamp": [`${T}`],
    };
    expect(verifyWebhook(BODY, asArrays, SECRET, { now: NOW }).isOk()).toBe(true);
  });

  it("accepts a timestamp exactly at the tolerance, either way, and refuses one second beyond", () => {
    for (const offset of [-300, 300]) {
      const headers = headersFor(BODY, T + offset);
      expect(verifyWebhook(BODY, headers, SECRET, { now: NOW }).isOk()).toBe(true);
    }
    for (const offset of [-301, 301]) {
      const result = verifyWebhook(BODY, headersFor(BODY, T + offset), SECRET, { now: NOW });
      expect(result).toMatchObject({ error: { reason: "timestamp_out_of_tolerance" } });
    }
  });

  it("honours a custom tolerance", () => {
    const headers = headersFor(BODY, T - 10);
    expect(verifyWebhook(BODY, headers, SECRET, { now: NOW, toleranceSeconds: 10 }).isOk()).toBe(
      true,
    );
    expect(verifyWebhook(BODY, headers, SECRET, { now: NOW, toleranceSeconds: 9 })).toMatchObject({
      error: { reason: "timestamp_out_of_tolerance" },
    });
  });

  it("refuses a tampered body", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (body, other) => {
        fc.pre(body !== other);
        const result = verifyWebhook(other, headersFor(body), SECRET, { now: NOW });
        expect(result).toMatchObject({ error: { reason: "signature_mismatch" } });
      }),
    );
  });

  it("refuses a signature made with another secret", () => {
    const result = verifyWebhook(BODY, headersFor(BODY, T, "whsec_other"), SECRET, { now: NOW });
    expect(result).toMatchObject({ error: { reason: "signature_mismatch" } });
  });

  it("refuses a signature whose timestamp header was changed (the timestamp is signed)", () => {
    const headers = { ...headersFor(), "X-Service-Timestamp": String(T + 1) };
    expect(verifyWebhook(BODY, headers, SECRET, { now: NOW })).toMatchObject({
      error: { reason: "signature_mismatch" },
    });
  });

  it("names a missing signature or timestamp header", () => {
    const { "X-Service-Signature": _s, ...noSignature } = headersFor();
    const { "X-Service-Timestamp": _t, ...noTimestamp } = headersFor();
    expect(verifyWebhook(BODY, noSignature, SECRET, { now: NOW })).toMatchObject({
      error: { reason: "missing_signature" },
    });
    expect(verifyWebhook(BODY, noTimestamp, SECRET, { now: NOW })).toMatchObject({
      error: { reason: "missing_timestamp" },
    });
    expect(verifyWebhook(BODY, {}, SECRET, { now: NOW })).toMatchObject({
      error: { reason: "missing_signature" },
    });
  });

  it("names a malformed signature or timestamp", () => {
    const base = headersFor();
    for (const signature of ["abc", "sha1=00", `sha256=${"z".repeat(64)}`, "deadbeef"]) {
      const result = verifyWebhook(BODY, { ...base, "X-Service-Signature": signature }, SECRET, {
        now: NOW,
      });
      expect(result, signature).toMatchObject({ error: { reason: "malformed_signature" } });
    }
    for (const stamp of ["soon", "1.5", "-1", "1e9", `${T}, ${T}`]) {
      const result = verifyWebhook(BODY, { ...base, "X-Service-Timestamp": stamp }, SECRET, {
        now: NOW,
      });
      expect(result, stamp).toMatchObject({ error: { reason: "malformed_timestamp" } });
    }
  });

  it("never throws, whatever the headers say", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom("x-service-signature", "X-Service-Timestamp", "x-service-topic", "other"),
          fc.oneof(fc.string(), fc.array(fc.string()), fc.constant(undefined)),
        ),
        fc.string(),
        (headers, body) => {
          const result = verifyWebhook(body, headers, SECRET, { now: NOW });
          expect(typeof result.isOk()).toBe("boolean");
          if (result.isErr()) expect(result.error.message.length).toBeGreaterThan(0);
        },
      ),
    );
  });
});
