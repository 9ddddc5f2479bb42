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
  upstreamError,
  upstreamRateLimited,
  upstreamRejected,
  upstreamUnavailable,
  withUpstreamRetries,
} from "@tidings/core";
import { request } from "undici";
import { callbackKey, legSegment } from "./callback-token.js";
import { legIdOf } from "./legs.js";
import type { InfobipApiError, InfobipMessage, InfobipSendResponse } from "./wire.js";

/** What the provider logs: refused credentials, loudly; each failed request at warn. */
export interface InfobipLogger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn?(msg: string, fields?: Record<string, unknown>): void;
}

/** One request to Infobip as the host's metrics and traces see it: no secret, no text. */
export type InfobipRequestSeen = ProviderRequestSeen<"infobip">;

export interface InfobipProviderOptions {
  /** The account's base URL, `https://{xxxxx}.api.infobip.com`. */
  baseUrl: string;
  /** Sent as `Authorization: App <apiKey>`. */
  apiKey: string;
  /**
   * The public URL of the mounted callbacks, e.g. `https://tidings.example.com/providers/infobip`;
   * a function when it is known only once the server listens.
   */
  callbackBaseUrl: string | (() => string);
  /** The server's secret key, from which the callback tokens' key is derived. */
  secretKey: Uint8Array;
  /**
   * Whether the account has Infobip's opt-in idempotent sending (`TIDINGS_INFOBIP_IDEMPOTENT=1`):
   * Infobip then refuses a `messageId` it already has, so a send whose answer was lost (a
   * timeout, a dropped connection, a 5xx) may be tried again. Off (most accounts), such a retry
   * would be a second message, so it is not made.
   */
  idempotent?: boolean | undefined;
  /** The deadline of one send, retries included, in ms (default 10 000). */
  timeoutMs?: number | undefined;
  clock?: Clock | undefined;
  logger?: InfobipLogger | undefined;
  circuit?: Omit<CircuitBreakerOptions, "clock"> | undefined;
  onRequest?: ((seen: InfobipRequestSeen) => void) | undefined;
  random?: (() => number) | undefined;
}

const PROVIDER = "infobip";

/** 48 hours: Infobip sets a longer validity to this, so a longer TTL is clamped, never promised. */
const MAX_VALIDITY_SECONDS = 48 * 60 * 60;

/**
 * What Infobip takes: Viber `content.text` of at most 1,000 characters (SMS text has no limit in
 * Infobip's documents), and a validity of at most 48 hours on either channel.
 */
export const INFOBIP_LIMITS: ProviderLimits = {
  text: { viber: 1000 },
  ttlSeconds: {
    viber: { min: 1, max: MAX_VALIDITY_SECONDS },
    sms: { min: 1, max: MAX_VALIDITY_SECONDS },
  },
};

/** The two callback URLs of a leg, each carrying the leg's token. */
export function legCallbackUrls(
  callbackBaseUrl: string,
  key: Uint8Array,
  legId: string,
): { delivery: string; seen: string } {
  const leg = `${callbackBaseUrl.replace(/\/+$/, "")}/${legSegment(key, legId)}`;
  return { delivery: `${leg}/delivery`, seen: `${leg}/seen` };
}

/** The message Infobip's send takes, built in one place (Viber and SMS differ a little). */
export function infobipMessage(
  message: OutboundMessage,
  urls: { delivery: string; seen: string },
): InfobipMessage {
  const destination = {
    to: message.phoneNumber.replace(/^\+/, ""),
    messageId: legIdOf(message.messageId, message.channel),
  };
  const validityPeriod = {
    amount: clampTtl(INFOBIP_LIMITS, message.channel, message.ttlSeconds),
    timeUnit: "SECONDS",
  } as const;
  if (message.channel === "viber") {
    return {
      sender: message.sender,
      destinations: [destination],
      content: { type: "TEXT", text: message.body },
      options: {
        validityPeriod,
        label: message.category === "promotional" ? "PROMOTIONAL" : "TRANSACTIONAL",
      },
      webhooks: {
        delivery: { url: urls.delivery },
        seen: { url: urls.seen },
        contentType: "application/json",
      },
    };
  }
  return {
    sender: message.sender,
    destinations: [destination],
    content: { text: message.body },
    options: { validityPeriod },
    webhooks: { delivery: { url: urls.delivery }, contentType: "application/json" },
  };
}

/**
 * Infobip as a `ChannelProvider` for Viber Business Messages (`POST /viber/2/messages`) and
 * SMS (`POST /sms/3/messages`), one message per request, each leg under a `messageId` of
 * Tidings' own (`legIdOf`), which is also its provider message id. A 429 and a request that
 * never reached Infobip are retried within the deadline. A timeout, a dropped connection or a
 * 5xx may have left the message with Infobip, so it is retried only on an account with
 * Infobip's opt-in idempotent sending (`idempotent`), where a repeated `messageId` is refused
 * (`REJECTED_DUPLICATE_MESSAGE_ID`) and such a refusal of a retry means the first try got
 * through. No `smsFailover` and no URL tracking: Tidings falls back and tracks clicks itself.
 * Behind a circuit breaker.
 */
export function infobipProvider(options: InfobipProviderOptions): ChannelProvider {
  const clock = options.clock ?? systemClock;
  const base = options.baseUrl.replace(/\/+$/, "");
  const key = callbackKey(options.secretKey);
  const unauthorized = credentialsRefusal({
    provider: PROVIDER,
    clock,
    logger: options.logger,
    logLine: "Infobip refused the API key: every message will fail until it is fixed",
    refusal: "Infobip refused Tidings' API key",
  });

  const seen = providerRequestWatch(PROVIDER, clock, options.onRequest, options.logger);
  const idempotent = options.idempotent === true;
  const deadlineMs = options.timeoutMs ?? 10_000;

  const unavailable = (why: string, code: string | null = null): DispatchResult =>
    upstreamUnavailable(PROVIDER, why, code);

  async function once(
    channel: Channel,
    body: string,
    signal: AbortSignal,
    tryNumber: number,
  ): Promise<UpstreamTry<DispatchResult>> {
    const startedAt = clock.now();
    const path = channel === "viber" ? "/viber/2/messages" : "/sms/3/messages";
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(`${base}${path}`, {
        method: "POST",
        headers: {
          authorization: `App ${options.apiKey}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body,
        signal,
      });
    } catch (thrown) {
      const failure = requestFailure(thrown, signal.aborted);
      seen(channel, "unavailable", null, startedAt, failure.cause);
      // Only an account that refuses a messageId it already has makes a retry of a request that
      // may have got through safe.
      const retry = failure.neverReached || idempotent;
      const why = requestFailureMessage("Infobip", failure, { deadlineMs, sentAgain: idempotent });
      return { retry, value: unavailable(why), retryAfterMs: null };
    }
    const status = response.statusCode;
    const json = await jsonOrEmpty(response.body);
    if (status === 200) {
      const answer = (json as InfobipSendResponse).messages?.[0];
      const group = answer?.status?.groupName;
      const name = answer?.status?.name ?? null;
      // A duplicate on a retry: the earlier try reached Infobip, which kept the message.
      const duplicate = name === "REJECTED_DUPLICATE_MESSAGE_ID" && idempotent && tryNumber > 1;
      if (group === "REJECTED" && !duplicate) {
        seen(channel, "rejected", status, startedAt, name);
        return {
          retry: false,
          value: {
            status: "rejected",
            error: upstreamError(
              "upstream_rejected",
              `Infobip refused the message: ${answer?.status?.description ?? name ?? "rejected"}`,
              PROVIDER,
              name,
            ),
          },
        };
      }
      seen(channel, "accepted", status, startedAt);
      return {
        retry: false,
        value: { status: "accepted", providerMessageId: answer?.messageId ?? null },
      };
    }
    const error = json as InfobipApiError;
    const said = error.description ?? `HTTP ${status}`;
    const code = error.errorCode ?? null;
    if (status === 429) {
      seen(channel, "rate_limited", status, startedAt, said);
      const retryAfter = firstHeader(response.headers["retry-after"]);
      const why = `Infobip is rate limiting requests: ${said}`;
      return upstreamRateLimited(
        PROVIDER,
        why,
        code ?? "TOO_MANY_REQUESTS",
        retryAfter,
        clock.now(),
      );
    }
    if (status === 401 || status === 403) {
      seen(channel, "unauthorized", status, startedAt, said);
      return unauthorized(status, said, code);
    }
    if (status >= 500) {
      seen(channel, "unavailable", status, startedAt, said);
      const again = idempotent
        ? "it may be tried again, as the account refuses a message id it already has"
        : "the message was not sent again, as Infobip may have taken it";
      return {
        retry: idempotent,
        value: unavailable(`Infobip answered ${status} (${said}); ${again}.`, code),
        retryAfterMs: null,
      };
    }
    seen(channel, "rejected", status, startedAt, said);
    const violation = error.violations?.[0];
    const detail = violation?.violation
      ? ` (${violation.property ?? "request"}: ${violation.violation})`
      : "";
    return upstreamRejected(PROVIDER, `Infobip refused the message: ${said}${detail}`, code);
  }

  const inner: ChannelProvider = {
    name: PROVIDER,
    async dispatch(message) {
      const tooLong = textOverLimit(PROVIDER, "Infobip", INFOBIP_LIMITS, message);
      if (tooLong !== null) return tooLong;
      const callbackBase =
        typeof options.callbackBaseUrl === "string"
          ? options.callbackBaseUrl
          : options.callbackBaseUrl();
      const urls = legCallbackUrls(callbackBase, key, legIdOf(message.messageId, message.channel));
      const body = JSON.stringify({ messages: [infobipMessage(message, urls)] });
      return withUpstreamRetries(
        (signal, _remaining, tryNumber) =>
          inProviderRequestSpan(PROVIDER, message.channel, () =>
            once(message.channel, body, signal, tryNumber),
          ),
        { deadlineMs, clock, random: options.random },
      );
    },
  };
  return guardedProvider(inner, circuitBreaker({ clock, ...options.circuit }));
}
