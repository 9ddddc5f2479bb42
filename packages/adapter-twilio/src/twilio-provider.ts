import {
  type ChannelProvider,
  type CircuitBreakerOptions,
  type Clock,
  circuitBreaker,
  credentialsRefusal,
  type DispatchResult,
  firstHeader,
  guardedProvider,
  inProviderRequestSpan,
  jsonOrEmpty,
  type OutboundMessage,
  type ProviderLimits,
  type ProviderRequestSeen,
  providerRequestWatch,
  requestFailure,
  requestFailureMessage,
  systemClock,
  textOverLimit,
  type UpstreamTry,
  upstreamError,
  upstreamRateLimited,
  upstreamRejected,
  upstreamUnavailable,
  withUpstreamRetries,
} from "@tidings/core";
import { request } from "undici";
import type { TwilioMessage, TwilioRestError } from "./wire.js";

/** What the provider logs: refused credentials (loudly) and each failed request at warn. */
export interface TwilioLogger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn?(msg: string, fields?: Record<string, unknown>): void;
  info?(msg: string, fields?: Record<string, unknown>): void;
}

/** One request to Twilio as the host's metrics and traces see it: no secret, no text. */
export type TwilioRequestSeen = ProviderRequestSeen<"twilio", "sms">;

export interface TwilioProviderOptions {
  accountSid: string;
  /** Sends with Basic `AccountSid:AuthToken` unless an API key is given. */
  authToken: string;
  /** An API key (`SK…`) and its secret, used for sending instead of the auth token. */
  apiKeySid?: string | undefined;
  apiKeySecret?: string | undefined;
  /** Sends with `MessagingServiceSid` instead of `From` (the campaign's sender is then unused). */
  messagingServiceSid?: string | undefined;
  /** Twilio's API origin (default `https://api.twilio.com`); tests point it at a fake. */
  apiUrl?: string | undefined;
  /**
   * Where Twilio posts status callbacks: the public URL of the mounted callbacks, e.g.
   * `https://tidings.example.com/providers/twilio`; a function when it is known only once the
   * server listens.
   */
  callbackBaseUrl: string | (() => string);
  /** The deadline of one send, retries included, in ms (default 10 000). */
  timeoutMs?: number | undefined;
  clock?: Clock | undefined;
  logger?: TwilioLogger | undefined;
  /** The circuit breaker's settings (5 failures, 30 s by default). */
  circuit?: Omit<CircuitBreakerOptions, "clock"> | undefined;
  /** Told about every request, for metrics and traces. */
  onRequest?: ((seen: TwilioRequestSeen) => void) | undefined;
  /** A number in [0, 1) for the backoff's jitter (default `Math.random`). */
  random?: (() => number) | undefined;
}

const PROVIDER = "twilio";
/** Twilio accepts a validity period of 1 to 36 000 seconds. */
const MAX_VALIDITY_SECONDS = 36_000;

/** What Twilio takes: a `Body` of at most 1,600 characters, a validity of 1–36,000 s. */
export const TWILIO_LIMITS: ProviderLimits = {
  text: { sms: 1600 },
  ttlSeconds: { sms: { min: 1, max: MAX_VALIDITY_SECONDS } },
};

/**
 * Twilio's 21611: the sender's queue is full. Twilio did not take the message, and the queue
 * drains, so it is tried again like a 429, not taken as a refusal of the message.
 */
const QUEUE_FULL = 21611;

/** The status callback URL of one message: its id rides in the query, which Twilio signs. */
export const statusCallbackUrl = (callbackBaseUrl: string, messageId: string): string =>
  `${callbackBaseUrl.replace(/\/+$/, "")}/status?m=${encodeURIComponent(messageId)}`;

/** The form Twilio's Create Message takes, built in one place. */
export function messageForm(
  message: OutboundMessage,
  options: Pick<TwilioProviderOptions, "messagingServiceSid"> & { callbackBaseUrl: string },
): URLSearchParams {
  const form = new URLSearchParams();
  form.set("To", message.phoneNumber);
  if (options.messagingServiceSid) form.set("MessagingServiceSid", options.messagingServiceSid);
  else form.set("From", message.sender);
  form.set("Body", message.body);
  const validity = Math.min(MAX_VALIDITY_SECONDS, Math.max(1, Math.trunc(message.ttlSeconds)));
  form.set("ValidityPeriod", String(validity));
  form.set("StatusCallback", statusCallbackUrl(options.callbackBaseUrl, message.messageId));
  return form;
}

/**
 * Twilio Programmable Messaging as a `ChannelProvider` for SMS: one `POST …/Messages.json` per
 * message, its `sid` kept as the provider message id. A 429, a full queue (21611) and a request
 * that never reached Twilio are retried within the deadline (never sooner than `Retry-After`);
 * a timeout or 5xx is not, since Twilio cannot tell a repeated request from a new message. A
 * text longer than Twilio takes is refused before it leaves. Behind a circuit breaker.
 */
export function twilioProvider(options: TwilioProviderOptions): ChannelProvider {
  const clock = options.clock ?? systemClock;
  const apiUrl = (options.apiUrl ?? "https://api.twilio.com").replace(/\/+$/, "");
  const endpoint = `${apiUrl}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
  const user = options.apiKeySid ?? options.accountSid;
  const password = options.apiKeySid ? (options.apiKeySecret ?? "") : options.authToken;
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  const unauthorized = credentialsRefusal({
    provider: PROVIDER,
    clock,
    logger: options.logger,
    logLine: "Twilio refused the credentials: every SMS will fail until they are fixed",
    refusal: "Twilio refused Tidings' credentials",
  });

  const watch = providerRequestWatch(PROVIDER, clock, options.onRequest, options.logger);
  // Twilio carries SMS only.
  const seen = (outcome: string, status: number | null, startedAt: number, cause?: string) =>
    watch("sms", outcome, status, startedAt, cause);
  const deadlineMs = options.timeoutMs ?? 10_000;

  const unavailable = (why: string, code: string | number | null = null): DispatchResult =>
    upstreamUnavailable(PROVIDER, why, code);

  async function once(
    form: URLSearchParams,
    signal: AbortSignal,
  ): Promise<UpstreamTry<DispatchResult>> {
    const startedAt = clock.now();
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(endpoint, {
        method: "POST",
        headers: {
          authorization,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: form.toString(),
        signal,
      });
    } catch (error) {
      const failure = requestFailure(error, signal.aborted);
      seen("unavailable", null, startedAt, failure.cause);
      const value = unavailable(requestFailureMessage("Twilio", failure, { deadlineMs }));
      // Only a request that never reached Twilio is safe to send again.
      return failure.neverReached
        ? { retry: true, value, retryAfterMs: null }
        : { retry: false, value };
    }
    const body = await jsonOrEmpty(response.body);
    const status = response.statusCode;
    if (status === 201 || status === 200) {
      const sid = (body as Partial<TwilioMessage>).sid;
      seen("accepted", status, startedAt);
      return {
        retry: false,
        value: { status: "accepted", providerMessageId: typeof sid === "string" ? sid : null },
      };
    }
    const error = body as TwilioRestError;
    const code = typeof error.code === "number" ? error.code : null;
    const said = typeof error.message === "string" ? error.message : `HTTP ${status}`;
    if (status === 429) {
      seen("rate_limited", status, startedAt, said);
      const retryAfter = firstHeader(response.headers["retry-after"]);
      const why = `Twilio is rate limiting requests: ${said}`;
      return upstreamRateLimited(PROVIDER, why, code ?? 20429, retryAfter, clock.now());
    }
    if (code === QUEUE_FULL) {
      seen("rate_limited", status, startedAt, said);
      const why = `Twilio's queue for this sender is full: ${said}`;
      return { retry: true, value: unavailable(why, code), retryAfterMs: null };
    }
    if (status === 401 || status === 403) {
      seen("unauthorized", status, startedAt, said);
      return unauthorized(status, said, code);
    }
    if (status >= 500) {
      seen("unavailable", status, startedAt, said);
      return {
        retry: false,
        value: unavailable(
          `Twilio answered ${status} (${said}); the message was not sent again, as Twilio may have taken it.`,
          code,
        ),
      };
    }
    seen("rejected", status, startedAt, said);
    return upstreamRejected(PROVIDER, `Twilio refused the message: ${said}`, code);
  }

  const inner: ChannelProvider = {
    name: PROVIDER,
    async dispatch(message) {
      if (message.channel !== "sms") {
        return {
          status: "rejected",
          error: upstreamError("upstream_rejected", "Twilio carries SMS only.", PROVIDER),
        };
      }
      const tooLong = textOverLimit(PROVIDER, "Twilio", TWILIO_LIMITS, message);
      if (tooLong !== null) return tooLong;
      const base = options.callbackBaseUrl;
      const form = messageForm(message, {
        messagingServiceSid: options.messagingServiceSid,
        callbackBaseUrl: typeof base === "string" ? base : base(),
      });
      return withUpstreamRetries(
        (signal) => inProviderRequestSpan(PROVIDER, "sms", () => once(form, signal)),
        { deadlineMs, clock, random: options.random },
      );
    },
  };
  return guardedProvider(inner, circuitBreaker({ clock, ...options.circuit }));
}
