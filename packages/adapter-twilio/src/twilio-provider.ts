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
  type ProviderRequestSeen,
  providerRequestWatch,
  systemClock,
  type UpstreamTry,
  upstreamError,
  upstreamRateLimited,
  upstreamRejected,
  upstreamUnavailable,
  withUpstreamRetries,
} from "@tidings/core";
import { request } from "undici";
import type { TwilioMessage, TwilioRestError } from "./wire.js";

/** What the provider logs: refused credentials (loudly) and each request's outcome. */
export interface TwilioLogger {
  error(msg: string, fields?: Record<string, unknown>): void;
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

/** Whether an error happened before any byte reached Twilio (so a retry cannot send twice). */
const refusedBeforeSending = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === "ECONNREFUSED";

/**
 * Twilio Programmable Messaging as a `ChannelProvider` for SMS: one `POST …/Messages.json` per
 * message, its `sid` kept as the provider message id. 429 and a refused connection are retried
 * within the deadline (never sooner than `Retry-After`); a timeout or 5xx is not, since Twilio
 * cannot tell a repeated request from a new message. Behind a circuit breaker.
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

  const watch = providerRequestWatch(PROVIDER, clock, options.onRequest);
  // Twilio carries SMS only.
  const seen = (outcome: string, status: number | null, startedAt: number) =>
    watch("sms", outcome, status, startedAt);

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
      if (refusedBeforeSending(error)) {
        seen("unavailable", null, startedAt);
        const value = unavailable("Twilio refused the connection.");
        return { retry: true, value, retryAfterMs: null };
      }
      seen("unavailable", null, startedAt);
      const timedOut = signal.aborted;
      return {
        retry: false,
        value: unavailable(
          timedOut
            ? "Twilio did not answer in time; the message was not sent again, as Twilio might have taken it."
            : "The connection to Twilio failed; the message was not sent again, as Twilio might have taken it.",
        ),
      };
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
      seen("rate_limited", status, startedAt);
      const retryAfter = firstHeader(response.headers["retry-after"]);
      const why = `Twilio is rate limiting requests: ${said}`;
      return upstreamRateLimited(PROVIDER, why, code ?? 20429, retryAfter, clock.now());
    }
    if (status === 401 || status === 403) {
      seen("unauthorized", status, startedAt);
      return unauthorized(status, said, code);
    }
    if (status >= 500) {
      seen("unavailable", status, startedAt);
      return {
        retry: false,
        value: unavailable(
          `Twilio answered ${status}; the message was not sent again, as Twilio might have taken it.`,
          code,
        ),
      };
    }
    seen("rejected", status, startedAt);
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
      const base = options.callbackBaseUrl;
      const form = messageForm(message, {
        messagingServiceSid: options.messagingServiceSid,
        callbackBaseUrl: typeof base === "string" ? base : base(),
      });
      return withUpstreamRetries(
        (signal) => inProviderRequestSpan(PROVIDER, "sms", () => once(form, signal)),
        {
          deadlineMs: options.timeoutMs ?? 10_000,
          clock,
          random: options.random,
        },
      );
    },
  };
  return guardedProvider(inner, circuitBreaker({ clock, ...options.circuit }));
}
