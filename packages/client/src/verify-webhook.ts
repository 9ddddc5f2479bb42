import type { WebhookEvent } from "./types.js";

/** How far a webhook's timestamp may be from the receiver's clock, either way: 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Why a webhook was refused; a stable word to switch on and log. */
export type WebhookRefusal =
  | "missing_signature"
  | "malformed_signature"
  | "missing_timestamp"
  | "malformed_timestamp"
  | "timestamp_out_of_tolerance"
  | "signature_mismatch"
  | "malformed_body";

export type WebhookVerification =
  | {
      ok: true;
      event: WebhookEvent;
      /** The signed Unix seconds of this attempt. */
      timestamp: number;
      /** `X-Service-Retry-Attempt`: 0 on the first attempt. */
      attempt: number;
    }
  | { ok: false; reason: WebhookRefusal };

export interface VerifyWebhookOptions {
  /** The largest distance between the signed timestamp and now, in seconds (300). */
  toleranceSeconds?: number | undefined;
  /** The receiver's time in milliseconds (`Date.now()`). */
  now?: number | undefined;
}

/** Request headers as a fetch `Headers`, or a plain object as node:http gives them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;
const TIMESTAMP = /^\d{1,15}$/;
const encoder = new TextEncoder();

/**
 * Checks a webhook Tidings posted: the `X-Service-Signature` is the HMAC-SHA256 of
 * `"{X-Service-Timestamp}.{raw body}"` keyed with `secret`, and the timestamp is within
 * `toleranceSeconds` of now, which bounds how long a captured request can be replayed. Pass
 * the body exactly as received, before any JSON parsing. Resolves with the parsed event, or a
 * refusal; never rejects. The signature is compared by Web Crypto's `verify`, in constant time.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookVerification> {
  try {
    const signatures = headerValues(headers, "x-service-signature");
    if (signatures.length === 0) return refuse("missing_signature");
    const stamps = headerValues(headers, "x-service-timestamp");
    if (stamps.length === 0) return refuse("missing_timestamp");
    const digests = signatures.map((value) => SIGNATURE.exec(value)?.[1]);
    if (digests.some((digest) => digest === undefined)) return refuse("malformed_signature");
    const stamp = stamps[0] ?? "";
    if (stamps.length > 1 || !TIMESTAMP.test(stamp)) return refuse("malformed_timestamp");
    const timestamp = Number(stamp);
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    const now = options.now ?? Date.now();
    if (!(Math.abs(now - timestamp * 1000) <= tolerance * 1000)) {
      return refuse("timestamp_out_of_tolerance");
    }
    const body = typeof rawBody === "string" ? encoder.encode(rawBody) : new Uint8Array(rawBody);
    const prefix = encoder.encode(`${timestamp}.`);
    const signed = new Uint8Array(prefix.length + body.length);
    signed.set(prefix);
    signed.set(body, prefix.length);
    const key = await crypto.subtle.importKey(
      "raw",
      encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    // Every signature is checked (during a rotation a sender may send two), none skipped.
    let matched = false;
    for (const digest of digests) {
      if (await crypto.subtle.verify("HMAC", key, hexBytes(digest ?? ""), signed)) matched = true;
    }
    if (!matched) return refuse("signature_mismatch");
    let event: WebhookEvent;
    try {
      event = JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
    } catch {
      return refuse("malformed_body");
    }
    const attempt = Number(headerValues(headers, "x-service-retry-attempt")[0] ?? 0);
    return { ok: true, event, timestamp, attempt: Number.isInteger(attempt) ? attempt : 0 };
  } catch {
    // Only an exotic headers object or a runtime without Web Crypto could get here.
    return refuse("malformed_signature");
  }
}

const refuse = (reason: WebhookRefusal): WebhookVerification => ({ ok: false, reason });

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++)
    bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * Every value of a header, by case-insensitive name, trimmed; a comma-separated value counts
 * as several (how fetch `Headers` joins a repeated header).
 */
function headerValues(headers: WebhookHeaders, name: string): string[] {
  const raw: string[] = [];
  if (typeof Headers !== "undefined" && headers instanceof Headers) {
    const value = headers.get(name);
    if (value !== null) raw.push(value);
  } else {
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() !== name || value === undefined) continue;
      raw.push(...(Array.isArray(value) ? value : [value]));
    }
  }
  return raw
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter((value) => value !== "");
}
