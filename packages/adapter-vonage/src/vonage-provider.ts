import {
  type Channel,
  type ChannelProvider,
  type CircuitBreakerOptions,
  type Clock,
  circuitBreaker,
  clampTtl,
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
  upstreamRateLimited,
  upstreamRejected,
  upstreamUnavailable,
  withUpstreamRetries,
} from "@tidings/core";
import { request } from "undici";
import { applicationJwt } from "./application-jwt.js";
import { clientRefOf } from "./legs.js";
import { providerCodeOf } from "./status-map.js";
import type { VonageError, VonageMessageAccepted, VonageMessageRequest } from "./wire.js";

/** What the provider logs: refused credentials, loudly; each failed request at warn. */
export interface VonageLogger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn?(msg: string, fields?: Record<string, unknown>): void;
}

/** One request to Vonage as the host's metrics and traces see it: no secret, no text. */
export type VonageRequestSeen = ProviderRequestSeen<"vonage">;

export interface VonageProviderOptions {
  /** The Vonage application's id: the `application_id` of the JWT. */
  applicationId: string;
  /** The application's private key, as PEM text (PKCS #8, or PKCS #1, which is converted). */
  privateKey: string;
  /** The Messages API origin (default `https://api.nexmo.com`); tests point it at a fake. */
  apiUrl?: string | undefined;
  /**
   * The public URL of the mounted callbacks, e.g. `https://tidings.example.com/providers/vonage`;
   * a function when it is known only once the server listens.
   */
  callbackBaseUrl: string | (() => string);
  timeoutMs?: number | undefined;
  clock?: Clock | undefined;
  logger?: VonageLogger | undefined;
  circuit?: Omit<CircuitBreakerOptions, "clock"> | undefined;
  onRequest?: ((seen: VonageRequestSeen) => void) | undefined;
  random?: (() => number) | undefined;
}

const PROVIDER = "vonage";

/**
 * What Vonage takes: a `text` of at most 1,000 characters on both channels; a Viber `ttl` of 30
 * to 259,200 s (3 days; longer is refused); an SMS `ttl` the Messages API bounds nowhere, kept
 * within what Vonage's SMS API takes for the same setting (20 s to 7 days).
 */
export const VONAGE_LIMITS: ProviderLimits = {
  text: { viber: 1000, sms: 1000 },
  ttlSeconds: {
    viber: { min: 30, max: 259_200 },
    sms: { min: 20, max: 7 * 24 * 60 * 60 },
  },
};

/** The status webhook URL every message gives. */
export const statusWebhookUrl = (callbackBaseUrl: string): string =>
  `${callbackBaseUrl.replace(/\/+$/, "")}/status`;

/**
 * The request of one message, built in one place. A Viber `from` on Vonage is the numeric
 * service id, the campaign's sender; numbers go without `+` (or `00`), `from` included.
 */
export function vonageMessage(message: OutboundMessage, webhookUrl: string): VonageMessageRequest {
  const common = {
    message_type: "text" as const,
    to: message.phoneNumber.replace(/^\+/, ""),
    from: message.sender.replace(/^(\+|00)(?=[0-9]+$)/, ""),
    text: message.body,
    client_ref: clientRefOf(message.messageId, message.channel),
    webhook_url: webhookUrl,
  };
  if (message.channel === "viber") {
    return {
      channel: "viber_service",
      ...common,
      viber_service: {
        category: message.category === "promotional" ? "promotion" : "transaction",
        ttl: clampTtl(VONAGE_LIMITS, "viber", message.ttlSeconds),
      },
    };
  }
  // The message's TTL, so an SMS Vonage could not deliver in time is not delivered late.
  return { channel: "sms", ...common, ttl: clampTtl(VONAGE_LIMITS, "sms", message.ttlSeconds) };
}

/**
 * The Vonage Messages API as a `ChannelProvider` for Viber (`viber_service`) and SMS: one
 * `POST /v1/messages` per message with an application JWT, its `message_uuid` kept as the
 * provider message id. A 429 and a request that never reached Vonage are retried within the
 * deadline; a timeout or 5xx is not, since Vonage does not deduplicate by `client_ref`. A text
 * longer than Vonage takes is refused before it leaves. Behind a circuit breaker.
 */
export function vonageProvider(options: VonageProviderOptions): ChannelProvider {
  const clock = options.clock ?? systemClock;
  const endpoint = `${(options.apiUrl ?? "https://api.nexmo.com").replace(/\/+$/, "")}/v1/messages`;
  const token = applicationJwt(options.applicationId, options.privateKey);
  const unauthorized = credentialsRefusal({
    provider: PROVIDER,
    clock,
    logger: options.logger,
    logLine:
      "Vonage refused the application's credentials: every message will fail until they are fixed",
    refusal: "Vonage refused Tidings' credentials",
  });

  const seen = providerRequestWatch(PROVIDER, clock, options.onRequest, options.logger);
  const deadlineMs = options.timeoutMs ?? 10_000;

  const unavailable = (why: string, code: string | null = null): DispatchResult =>
    upstreamUnavailable(PROVIDER, why, code);

  async function once(
    channel: Channel,
    body: string,
    signal: AbortSignal,
  ): Promise<UpstreamTry<DispatchResult>> {
    const startedAt = clock.now();
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(endpoint, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await token(clock.now())}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body,
        signal,
      });
    } catch (error) {
      const failure = requestFailure(error, signal.aborted);
      seen(channel, "unavailable", null, startedAt, failure.cause);
      const value = unavailable(requestFailureMessage("Vonage", failure, { deadlineMs }));
      // Only a request that never reached Vonage is safe to send again.
      return failure.neverReached
        ? { retry: true, value, retryAfterMs: null }
        : { retry: false, value };
    }
    const status = response.statusCode;
    const json = await jsonOrEmpty(response.body);
    if (status === 202 || status === 200) {
      seen(channel, "accepted", status, startedAt);
      const uuid = (json as VonageMessageAccepted).message_uuid;
      return {
        retry: false,
        value: { status: "accepted", providerMessageId: typeof uuid === "string" ? uuid : null },
      };
    }
    const error = json as VonageError;
    const said =
      error.detail ?? (error.title === undefined ? null : String(error.title)) ?? `HTTP ${status}`;
    const code = providerCodeOf(error);
    if (status === 429) {
      seen(channel, "rate_limited", status, startedAt, said);
      const retryAfter = firstHeader(response.headers["retry-after"]);
      const why = `Vonage is rate limiting requests: ${said}`;
      return upstreamRateLimited(PROVIDER, why, code, retryAfter, clock.now());
    }
    if (status === 401 || status === 403) {
      seen(channel, "unauthorized", status, startedAt, said);
      return unauthorized(status, said, code);
    }
    if (status >= 500) {
      seen(channel, "unavailable", status, startedAt, said);
      return {
        retry: false,
        value: unavailable(
          `Vonage answered ${status} (${said}); the message was not sent again, as Vonage may have taken it.`,
          code,
        ),
      };
    }
    seen(channel, "rejected", status, startedAt, said);
    return upstreamRejected(PROVIDER, `Vonage refused the message: ${said}`, code);
  }

  const inner: ChannelProvider = {
    name: PROVIDER,
    async dispatch(message) {
      const tooLong = textOverLimit(PROVIDER, "Vonage", VONAGE_LIMITS, message);
      if (tooLong !== null) return tooLong;
      const base =
        typeof options.callbackBaseUrl === "string"
          ? options.callbackBaseUrl
          : options.callbackBaseUrl();
      const body = JSON.stringify(vonageMessage(message, statusWebhookUrl(base)));
      return withUpstreamRetries(
        (signal) =>
          inProviderRequestSpan(PROVIDER, message.channel, () =>
            once(message.channel, body, signal),
          ),
        { deadlineMs, clock, random: options.random },
      );
    },
  };
  return guardedProvider(inner, circuitBreaker({ clock, ...options.circuit }));
}
