import type { Deps } from "../deps.js";
import type {
  AttemptOutcome,
  DeliveryAttemptRecord,
  DeliveryRecord,
  WebhookResponse,
} from "../ports.js";
import { isoAt } from "../support/clock.js";
import { inSpan, SPAN_ATTRIBUTES } from "../support/tracing.js";
import { parseUrl } from "../support/url.js";
import { type ResolvedDestination, resolveDestination } from "./delivery-destination.js";
import { loggableUrl, withLoggableUrl } from "./loggable-url.js";
import { nextAttemptAt, parseRetryAfter } from "./retry-schedule.js";
import { webhookHeaders } from "./signing.js";

/** The most of a receiver's answer kept on an attempt (2 KiB). */
export const RESPONSE_BODY_LIMIT = 2048;

/** What one attempt did, for the engine's log. */
export interface AttemptReport {
  deliveryId: string;
  attempt: number;
  /** Where it went: scheme, host and path only (see `loggableUrl`). */
  url: string | null;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  outcome: AttemptOutcome["next"]["status"];
  /**
   * `false` when the attempt's outcome was not applied: the lease was lost (another worker owns
   * it) or the delivery was cancelled meanwhile. The attempt itself is logged either way.
   */
  recorded: boolean;
}

export type AttemptDeps = Pick<Deps, "storage" | "clock" | "secretBox" | "transport" | "config">;

/** One attempt made and not yet recorded: what `completeAttempts` stores, and where it went. */
export interface AttemptResult {
  delivery: DeliveryRecord;
  attempt: DeliveryAttemptRecord;
  next: AttemptOutcome["next"];
  url: string | null;
}

/**
 * Makes one attempt of a leased delivery without recording it: resolves the current URL and
 * secret (or takes them from `resolve`, read as the delivery was claimed), signs with this
 * attempt's timestamp, posts, and works out the delivery's next state (delivered, pending at the
 * schedule's next time, or failed once the retry window is over).
 */
export function makeAttempt(
  deps: AttemptDeps,
  delivery: DeliveryRecord,
  random: () => number = Math.random,
  resolve: () => Promise<ResolvedDestination> = () =>
    resolveDestination(deps.storage, deps.secretBox, delivery.destination),
): Promise<AttemptResult> {
  const ids = {
    [SPAN_ATTRIBUTES.deliveryId]: delivery.id,
    [SPAN_ATTRIBUTES.attempt]: delivery.attempts,
    ...(delivery.messageId === null ? {} : { [SPAN_ATTRIBUTES.messageId]: delivery.messageId }),
  };
  return inSpan("webhook.attempt", ids, async (span) => {
    const result = await attemptOnce(deps, delivery, random, resolve);
    // Without a tracing SDK nobody reads the attributes: skip parsing the URL for them.
    if (!span.isRecording()) return result;
    // Scheme, host and path only: a query string often carries the receiver's token.
    const url = result.url === null ? null : parseUrl(result.url);
    if (url) {
      span.setAttributes({
        "url.scheme": url.protocol.replace(/:$/, ""),
        "server.address": url.hostname,
        "url.path": url.pathname,
      });
    }
    if (result.attempt.statusCode !== null) {
      span.setAttribute("http.response.status_code", result.attempt.statusCode);
    }
    span.setAttribute("tidings.webhook.outcome", result.next.status);
    return result;
  });
}

async function attemptOnce(
  deps: AttemptDeps,
  delivery: DeliveryRecord,
  random: () => number,
  resolve: () => Promise<ResolvedDestination>,
): Promise<AttemptResult> {
  const startedMs = deps.clock.now();
  let url: string | null = null;
  let response: WebhookResponse;
  let gone = false;
  try {
    const destination = await resolve();
    if (destination.kind === "gone") {
      gone = true;
      response = { kind: "error", error: destination.reason, durationMs: 0 };
    } else {
      url = destination.url;
      const headers = webhookHeaders({
        secret: destination.secret,
        timestamp: Math.floor(startedMs / 1000),
        body: delivery.payload,
        topic: delivery.topic,
        deliveryId: delivery.id,
        attempt: delivery.attempts,
      });
      response = await deps.transport.post({
        url,
        headers,
        body: delivery.payload,
        timeoutMs: deps.config.webhookTimeoutMs,
      });
    }
  } catch (cause) {
    // The transport never rejects; this is a sealed secret that does not open or a failed read.
    // It counts as a failed attempt, so the schedule retries it rather than losing the event.
    response = { kind: "error", error: `Not sent: ${describe(cause)}`, durationMs: 0 };
  }

  const attempt = toAttempt(delivery, startedMs, response);
  const next = gone
    ? ({ status: "failed" } as const)
    : nextState(deps, delivery, startedMs, response, random);
  return { delivery, attempt, next, url };
}

/**
 * The log line of an attempt; `recorded` is what `completeAttempts` answered. The URL is logged
 * without its query string, where receivers put tokens, also inside the error.
 */
export const attemptReport = (result: AttemptResult, recorded: boolean): AttemptReport => {
  const { url } = result;
  const { error } = result.attempt;
  return {
    deliveryId: result.delivery.id,
    attempt: result.attempt.attempt,
    url: url === null ? null : loggableUrl(url),
    statusCode: result.attempt.statusCode,
    durationMs: result.attempt.durationMs,
    error: error === null || url === null ? error : withLoggableUrl(error, url),
    outcome: result.next.status,
    recorded,
  };
};

const isSuccess = (response: WebhookResponse): boolean =>
  response.kind === "response" && response.status >= 200 && response.status < 300;

function nextState(
  deps: AttemptDeps,
  delivery: DeliveryRecord,
  startedMs: number,
  response: WebhookResponse,
  random: () => number,
): AttemptOutcome["next"] {
  if (isSuccess(response)) return { status: "delivered" };
  const now = startedMs + response.durationMs;
  const retryAfterMs =
    response.kind === "response" && response.status === 429
      ? parseRetryAfter(headerValue(response.headers, "retry-after"), now)
      : undefined;
  const at = nextAttemptAt(
    {
      // Counted from the current window's start, so a redelivery backs off like a new delivery.
      attempts: delivery.attempts + 1 - delivery.windowStartAttempt,
      firstAttemptAt:
        delivery.firstAttemptAt === null ? startedMs : Date.parse(delivery.firstAttemptAt),
      now,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      random,
    },
    deps.config,
  );
  return at === null ? { status: "failed" } : { status: "pending", nextAttemptAt: isoAt(at) };
}

function toAttempt(
  delivery: DeliveryRecord,
  startedMs: number,
  response: WebhookResponse,
): DeliveryAttemptRecord {
  const base = {
    deliveryId: delivery.id,
    organizationId: delivery.organizationId,
    attempt: delivery.attempts,
    startedAt: isoAt(startedMs),
    durationMs: Math.max(0, Math.round(response.durationMs)),
  };
  if (response.kind === "error") {
    return { ...base, statusCode: null, error: response.error, responseBody: null };
  }
  return {
    ...base,
    statusCode: response.status,
    error: isSuccess(response) ? null : `The receiver answered HTTP ${response.status}.`,
    responseBody: firstBytes(response.body, RESPONSE_BODY_LIMIT),
  };
}

/** A header by case-insensitive name. */
function headerValue(headers: Record<string, string>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

/** At most `limit` UTF-8 bytes of `text`, never splitting a character. */
function firstBytes(text: string, limit: number): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short answers need no encoding.
  if (text.length * 3 <= limit) return text;
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= limit) return text;
  let end = limit;
  // Back up to the start of a character: continuation bytes are 0b10xxxxxx.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : String(cause);
