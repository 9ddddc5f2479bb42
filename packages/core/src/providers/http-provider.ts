import type {
  Channel,
  ChannelProvider,
  Clock,
  DispatchOptions,
  DispatchResult,
  NotTaken,
  OutboundMessage,
} from "../ports.js";
import { systemClock } from "../support/clock.js";
import { type CircuitBreakerOptions, circuitBreaker } from "./circuit-breaker.js";
import { guardedProvider } from "./guarded-provider.js";
import { clampTtl, type ProviderLimits, textOverLimit } from "./provider-limits.js";
import type { ProviderLogger } from "./provider-logger.js";
import {
  inProviderRequestSpan,
  type ProviderRequestSeen,
  providerRequestWatch,
} from "./provider-span.js";
import { requestFailure, requestFailureMessage } from "./request-failure.js";
import {
  credentialsRefusal,
  firstHeader,
  upstreamRateLimited,
  upstreamRejected,
  upstreamUnavailable,
} from "./upstream-answers.js";
import { upstreamError } from "./upstream-errors.js";
import { type UpstreamTry, withUpstreamRetries } from "./upstream-retry.js";

/** One request to a provider, as the adapter builds it. */
export interface ProviderHttpRequest {
  method: "POST" | "GET";
  url: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

/** A provider's answer: its status, headers and body as a JSON object (`{}` when not JSON). */
export interface ProviderHttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/**
 * Makes one HTTP request (the adapter's client: core does no I/O). Throws when no answer came,
 * with the client's error (its `code` tells `requestFailure` whether the request left).
 */
export type ProviderTransport = (
  request: ProviderHttpRequest & { signal: AbortSignal },
) => Promise<ProviderHttpAnswer>;

/** What a provider's error body said: its words, its own code, and any detail for a refusal. */
export interface ProviderErrorSaid {
  said: string;
  code: string | number | null;
  /** Added to a refusal's message, e.g. " (messages[0].sender: must not be blank)". */
  detail?: string | undefined;
}

/** What a 2xx answer comes to: accepted under the provider's id, or refused after all. */
export type ProviderAcceptance =
  | {
      accepted: true;
      providerMessageId: string | null;
      /** The sender the answer says the message goes out from, where it says so. */
      sentFrom?: string | null | undefined;
    }
  | { accepted: false; said: string; code: string | number | null };

/**
 * A provider adapter on the skeleton: how to build a message's request and read the answers,
 * and whether a request whose outcome is unknown may be sent again. The skeleton owns the rest.
 */
export interface HttpProviderSpec<P extends string = string> {
  /** `TIDINGS_PROVIDER`'s value: `twilio`. */
  name: P;
  /** How the provider is named in sentences: `Twilio`. */
  title: string;
  channels: readonly Channel[];
  limits: ProviderLimits;
  /**
   * Whether a request that may have reached the provider (a timeout, a dropped connection, a
   * 5xx) may be sent again: only where the provider refuses to take the same message twice.
   */
  retryUnknownOutcome: boolean;
  /** The request of one message (called once per send; `headers` once per try). */
  request(message: OutboundMessage): ProviderHttpRequest;
  /** Headers made fresh for each try (a short-lived token), merged over the request's. */
  headersPerTry?(nowMs: number): Promise<Record<string, string>>;
  /** What a 2xx answer says (`tryNumber` counts from 1). */
  accepted(answer: ProviderHttpAnswer, tryNumber: number): ProviderAcceptance;
  /** What an error answer says. */
  errorOf(answer: ProviderHttpAnswer): ProviderErrorSaid;
  /**
   * Whether an error answer (not 429) is a temporary refusal the provider did not act on, tried
   * again like a 429 (Twilio's 21611, a full queue).
   */
  temporary?(answer: ProviderHttpAnswer, said: ProviderErrorSaid): boolean;
  /** The code a 429 without one of its own carries (Twilio's 20429). */
  rateLimitCode?: string | number | undefined;
}

/** Who a provider is, shared by its spec and its plugin: name, title, channels and limits. */
export type ProviderIdentity<P extends string = string> = Pick<
  HttpProviderSpec<P>,
  "name" | "title" | "channels" | "limits"
>;

/** The host's side of a provider: deadline, clock, logs, breaker, metrics, jitter. */
export interface HttpProviderOptions<P extends string = string> {
  transport: ProviderTransport;
  /** The deadline of one send, retries included, in ms (default 10 000). */
  timeoutMs?: number | undefined;
  clock?: Clock | undefined;
  logger?: ProviderLogger | undefined;
  /** The circuit breaker's settings (5 failures, 30 s by default). */
  circuit?: Omit<CircuitBreakerOptions, "clock"> | undefined;
  /** Told about every request, for metrics and traces. */
  onRequest?: ((seen: ProviderRequestSeen<P>) => void) | undefined;
  /** A number in [0, 1) for the backoff's jitter (default `Math.random`). */
  random?: (() => number) | undefined;
}

/**
 * A refusal the provider did not act on (429, a full queue, refused credentials), marked
 * `notTaken`; with a failover ready it is answered at once instead of being tried again here.
 */
function notTaken(
  why: NotTaken,
  outcome: UpstreamTry<DispatchResult>,
  failoverReady: boolean,
): UpstreamTry<DispatchResult> {
  const value = { ...outcome.value, notTaken: why };
  return outcome.retry && !failoverReady
    ? { retry: true, value, retryAfterMs: outcome.retryAfterMs }
    : { retry: false, value };
}

/** The default deadline of one send to a provider, retries included. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/**
 * A `ChannelProvider` over HTTP from an adapter's `spec`: per send, a text over the provider's
 * limit is refused before it leaves; then at most 3 tries within the deadline, each in a span,
 * counted and timed for `onRequest`, and logged at warn when not accepted. The ladder: no answer
 * (retried only when it provably never reached the provider, or `retryUnknownOutcome`), 2xx
 * (the spec's `accepted`), 429 and temporary refusals (retried after `Retry-After`), 401/403
 * (`upstream_unauthorized`, logged at error once a minute), 5xx (`upstream_unavailable`, retried
 * only when `retryUnknownOutcome`), anything else `upstream_rejected`. Behind a circuit breaker.
 */
export function httpProvider<P extends string>(
  spec: HttpProviderSpec<P>,
  options: HttpProviderOptions<P>,
): ChannelProvider {
  const clock = options.clock ?? systemClock;
  const deadlineMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
  const { title } = spec;
  const unauthorized = credentialsRefusal({
    provider: spec.name,
    clock,
    logger: options.logger,
    logLine: `${title} refused the credentials: every message will fail until they are fixed`,
    refusal: `${title} refused Tidings' credentials`,
  });
  const seen = providerRequestWatch(spec.name, clock, options.onRequest, options.logger);
  const again = spec.retryUnknownOutcome
    ? `it may be tried again, as ${title} refuses a message it already has`
    : `the message was not sent again, as ${title} may have taken it`;

  async function once(
    channel: Channel,
    request: ProviderHttpRequest,
    signal: AbortSignal,
    tryNumber: number,
    failoverReady: boolean,
  ): Promise<UpstreamTry<DispatchResult>> {
    const startedAt = clock.now();
    let answer: ProviderHttpAnswer;
    try {
      const fresh = spec.headersPerTry ? await spec.headersPerTry(clock.now()) : {};
      answer = await options.transport({
        ...request,
        headers: { ...request.headers, ...fresh },
        signal,
      });
    } catch (error) {
      const failure = requestFailure(error, signal.aborted);
      seen(channel, "unavailable", null, startedAt, failure.cause);
      const value = upstreamUnavailable(
        spec.name,
        requestFailureMessage(title, failure, {
          deadlineMs,
          sentAgain: spec.retryUnknownOutcome,
        }),
      );
      if (failure.neverReached) {
        // Nothing was sent: tried again here, or at once by the next provider of a failover.
        const untaken = { ...value, notTaken: "unreachable" as const };
        return failoverReady
          ? { retry: false, value: untaken }
          : { retry: true, value: untaken, retryAfterMs: null };
      }
      return spec.retryUnknownOutcome
        ? { retry: true, value, retryAfterMs: null }
        : { retry: false, value };
    }
    const { status } = answer;
    if (status >= 200 && status < 300) {
      const acceptance = spec.accepted(answer, tryNumber);
      if (!acceptance.accepted) {
        seen(channel, "rejected", status, startedAt, acceptance.said);
        const refusal = `${title} refused the message: ${acceptance.said}`;
        return upstreamRejected(spec.name, refusal, acceptance.code);
      }
      seen(channel, "accepted", status, startedAt);
      return {
        retry: false,
        value: {
          status: "accepted",
          providerMessageId: acceptance.providerMessageId,
          ...(acceptance.sentFrom ? { sentFrom: acceptance.sentFrom } : {}),
        },
      };
    }
    const error = spec.errorOf(answer);
    const { said, code } = error;
    if (status === 429) {
      seen(channel, "rate_limited", status, startedAt, said);
      const retryAfter = firstHeader(answer.headers["retry-after"]);
      const why = `${title} is rate limiting requests: ${said}`;
      return notTaken(
        "rate_limited",
        upstreamRateLimited(
          spec.name,
          why,
          code ?? spec.rateLimitCode ?? null,
          retryAfter,
          clock.now(),
        ),
        failoverReady,
      );
    }
    if (spec.temporary?.(answer, error)) {
      seen(channel, "rate_limited", status, startedAt, said);
      const value = upstreamUnavailable(spec.name, `${title} cannot take it now: ${said}`, code);
      return notTaken("rate_limited", { retry: true, value, retryAfterMs: null }, failoverReady);
    }
    if (status === 401 || status === 403) {
      seen(channel, "unauthorized", status, startedAt, said);
      return notTaken("unauthorized", unauthorized(status, said, code), failoverReady);
    }
    if (status >= 500) {
      seen(channel, "unavailable", status, startedAt, said);
      const value = upstreamUnavailable(
        spec.name,
        `${title} answered ${status} (${said}); ${again}.`,
        code,
      );
      return spec.retryUnknownOutcome
        ? { retry: true, value, retryAfterMs: null }
        : { retry: false, value };
    }
    seen(channel, "rejected", status, startedAt, said);
    return upstreamRejected(
      spec.name,
      `${title} refused the message: ${said}${error.detail ?? ""}`,
      code,
    );
  }

  const inner: ChannelProvider = {
    name: spec.name,
    textLimit(channel) {
      const characters = spec.limits.text[channel];
      return characters === undefined ? null : { characters, provider: spec.name };
    },
    async dispatch(message, dispatchOptions?: DispatchOptions) {
      const failoverReady = dispatchOptions?.failoverReady === true;
      if (!spec.channels.includes(message.channel)) {
        const carried = spec.channels.map((c) => (c === "sms" ? "SMS" : "Viber")).join(" and ");
        return {
          status: "rejected",
          error: upstreamError("upstream_rejected", `${title} carries ${carried} only.`, spec.name),
        };
      }
      const tooLong = textOverLimit(spec.name, title, spec.limits, message);
      if (tooLong !== null) return tooLong;
      const request = spec.request(message);
      const result = await withUpstreamRetries(
        (signal, _remaining, tryNumber) =>
          inProviderRequestSpan(spec.name, message.channel, () =>
            once(message.channel, request, signal, tryNumber, failoverReady),
          ),
        { deadlineMs, clock, random: options.random },
      );
      // The request builders clamp the TTL the same way; the leg's view says so.
      const ttl = clampTtl(spec.limits, message.channel, message.ttlSeconds);
      return result.status === "accepted" && ttl !== Math.trunc(message.ttlSeconds)
        ? { ...result, clampedTtlSeconds: ttl }
        : result;
    },
  };
  return guardedProvider(inner, circuitBreaker({ clock, ...options.circuit }));
}
