import {
  type ChannelProvider,
  clampTtl,
  type HttpProviderOptions,
  type HttpProviderSpec,
  httpProvider,
  type OutboundMessage,
  type ProviderLimits,
  type ProviderRequestSeen,
} from "@tidings/core";
import { callbackKey, legSegment } from "./callback-token.js";
import { legIdOf } from "./legs.js";
import { REJECTED_DUPLICATE_MESSAGE_ID } from "./status-map.js";
import type { InfobipApiError, InfobipMessage, InfobipSendResponse } from "./wire.js";

/** One request to Infobip as the host's metrics and traces see it: no secret, no text. */
export type InfobipRequestSeen = ProviderRequestSeen<"infobip">;

export interface InfobipProviderOptions extends Omit<HttpProviderOptions<"infobip">, "onRequest"> {
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
  onRequest?: ((seen: InfobipRequestSeen) => void) | undefined;
}

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
 * Infobip for Viber Business Messages (`POST /viber/2/messages`) and SMS (`POST
 * /sms/3/messages`) on the provider skeleton, one message per request, each leg under a
 * `messageId` of Tidings' own (`legIdOf`), which is also its provider message id. A request
 * that may have reached Infobip is sent again only on an account with idempotent sending,
 * where a repeated `messageId` is refused (`REJECTED_DUPLICATE_MESSAGE_ID`) and that refusal of
 * a retry means the first try got through. No `smsFailover` and no URL tracking: Tidings falls
 * back and tracks clicks itself.
 */
export function infobipSpec(options: InfobipProviderOptions): HttpProviderSpec<"infobip"> {
  const base = options.baseUrl.replace(/\/+$/, "");
  const key = callbackKey(options.secretKey);
  const idempotent = options.idempotent === true;
  return {
    name: "infobip",
    title: "Infobip",
    channels: ["viber", "sms"],
    limits: INFOBIP_LIMITS,
    retryUnknownOutcome: idempotent,
    rateLimitCode: "TOO_MANY_REQUESTS",
    request(message) {
      const callbackBase =
        typeof options.callbackBaseUrl === "string"
          ? options.callbackBaseUrl
          : options.callbackBaseUrl();
      const urls = legCallbackUrls(callbackBase, key, legIdOf(message.messageId, message.channel));
      return {
        method: "POST",
        url: `${base}${message.channel === "viber" ? "/viber/2/messages" : "/sms/3/messages"}`,
        headers: {
          authorization: `App ${options.apiKey}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify({ messages: [infobipMessage(message, urls)] }),
      };
    },
    accepted(answer, tryNumber) {
      const sent = (answer.body as InfobipSendResponse).messages?.[0];
      const name = sent?.status?.name ?? null;
      // A duplicate on a retry: the earlier try reached Infobip, which kept the message.
      const duplicate = name === REJECTED_DUPLICATE_MESSAGE_ID && idempotent && tryNumber > 1;
      if (sent?.status?.groupName === "REJECTED" && !duplicate) {
        return { accepted: false, said: sent.status.description ?? name ?? "rejected", code: name };
      }
      return { accepted: true, providerMessageId: sent?.messageId ?? null };
    },
    errorOf(answer) {
      const error = answer.body as InfobipApiError;
      const violation = error.violations?.[0];
      return {
        said: error.description ?? `HTTP ${answer.status}`,
        code: error.errorCode ?? null,
        detail: violation?.violation
          ? ` (${violation.property ?? "request"}: ${violation.violation})`
          : undefined,
      };
    },
  };
}

/** Infobip as a `ChannelProvider`, behind the skeleton's retries, deadline and breaker. */
export const infobipProvider = (options: InfobipProviderOptions): ChannelProvider =>
  httpProvider(infobipSpec(options), options);
