import { createHmac, timingSafeEqual } from "node:crypto";
import { err, ok, type Result } from "neverthrow";

/** The User-Agent of every webhook request. */
export const WEBHOOK_USER_AGENT = "Tidings-Webhooks/1";

/** How far a webhook's timestamp may be from the receiver's clock, either way, by default. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SIGNATURE_PATTERN = /^sha256=([0-9a-f]{64})$/i;
const TIMESTAMP_PATTERN = /^\d{1,15}$/;

/** HMAC-SHA256 of `"{timestamp}.{body}"` keyed with the secret's UTF-8 bytes, as `sha256=<hex>`. */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return `sha256=${hmac(secret, timestamp, Buffer.from(body, "utf8")).toString("hex")}`;
}

export interface WebhookHeadersInput {
  secret: string;
  /** Integer Unix seconds of this attempt. */
  timestamp: number;
  body: string;
  topic: string;
  deliveryId: string;
  /** 0 on the first attempt. */
  attempt: number;
}

/** The headers of one webhook attempt, signed with this attempt's timestamp. */
export function webhookHeaders(input: WebhookHeadersInput): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": WEBHOOK_USER_AGENT,
    "X-Service-Signature": signPayload(input.secret, input.timestamp, input.body),
    "X-Service-Timestamp": String(input.timestamp),
    "X-Service-Topic": input.topic,
    "X-Service-Delivery-Id": input.deliveryId,
    "X-Service-Retry-Attempt": String(input.attempt),
  };
}

export type WebhookRefusal =
  | "missing_signature"
  | "malformed_signature"
  | "missing_timestamp"
  | "malformed_timestamp"
  | "timestamp_out_of_tolerance"
  | "signature_mismatch";

/** What a verified webhook's headers say. */
export interface VerifiedWebhook {
  timestamp: number;
  deliveryId: string;
  topic: string;
}

/** Why a webhook was refused: a stable `reason` to switch on and a sentence for logs. */
export interface WebhookRejection {
  reason: WebhookRefusal;
  message: string;
}

export type WebhookVerification = Result<VerifiedWebhook, WebhookRejection>;

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the timestamp and now, in seconds (300). */
  toleranceSeconds?: number | undefined;
  /** The receiver's time in milliseconds (defaults to `Date.now()`). */
  now?: number | undefined;
}

export type IncomingHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a received webhook: the timestamp is within tolerance and the signature matches the
 * raw body as received. Header names are case-insensitive; never throws. `deliveryId` and
 * `topic` are `""` when their headers are absent (they are not signed).
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: IncomingHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookVerification {
  try {
    const signatures = headerValues(headers, "x-service-signature");
    if (signatures.length === 0) {
      return refuse("missing_signature", "The X-Service-Signature header is missing.");
    }
    const stamps = headerValues(headers, "x-service-timestamp");
    if (stamps.length === 0) {
      return refuse("missing_timestamp", "The X-Service-Timestamp header is missing.");
    }
    const digests = signatures.map((value) => SIGNATURE_PATTERN.exec(value)?.[1]);
    if (digests.some((digest) => digest === undefined)) {
      return refuse(
        "malformed_signature",
        "The X-Service-Signature header is not of the form sha256=<64 hex digits>.",
      );
    }
    const stamp = stamps[0] ?? "";
    if (stamps.length > 1 || !TIMESTAMP_PATTERN.test(stamp)) {
      return refuse(
        "malformed_timestamp",
        "The X-Service-Timestamp header is not one integer number of Unix seconds.",
      );
    }
    const timestamp = Number(stamp);
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    const now = options.now ?? Date.now();
    if (!(Math.abs(now - timestamp * 1000) <= tolerance * 1000)) {
      return refuse(
        "timestamp_out_of_tolerance",
        `The X-Service-Timestamp is more than ${tolerance} seconds away from the current time.`,
      );
    }
    const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody;
    const expected = hmac(secret, timestamp, body);
    // Every digest is compared, so a match does not stop early and leak which one matched.
    let matched = false;
    for (const digest of digests) {
      const given = Buffer.from(digest ?? "", "hex");
      if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
    }
    if (!matched) {
      return refuse(
        "signature_mismatch",
        "The signature does not match the body: it was changed or signed with another secret.",
      );
    }
    return ok({
      timestamp,
      deliveryId: headerValues(headers, "x-service-delivery-id")[0] ?? "",
      topic: headerValues(headers, "x-service-topic")[0] ?? "",
    });
  } catch {
    // Only an exotic headers object could get here; a refusal is still the honest answer.
    return refuse("malformed_signature", "The webhook headers could not be read.");
  }
}

function hmac(secret: string, timestamp: number, body: Uint8Array): Buffer {
  return createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(`${timestamp}.`, "utf8")
    .update(body)
    .digest();
}

const refuse = (reason: WebhookRefusal, message: string): WebhookVerification =>
  err({ reason, message });

/**
 * Every value of a header, by case-insensitive name, trimmed; a comma-separated value counts as
 * several (how Fetch `Headers` joins a repeated header).
 */
function headerValues(headers: IncomingHeaders, name: string): string[] {
  const raw: string[] = [];
  if (isFetchHeaders(headers)) {
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

const isFetchHeaders = (headers: IncomingHeaders): headers is Headers =>
  typeof Headers !== "undefined" && headers instanceof Headers;
