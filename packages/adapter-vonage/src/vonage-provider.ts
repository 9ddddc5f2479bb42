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
import { applicationJwt } from "./application-jwt.js";
import { clientRefOf } from "./legs.js";
import { providerCodeOf } from "./status-map.js";
import type { VonageError, VonageMessageAccepted, VonageMessageRequest } from "./wire.js";

/** One request to Vonage as the host's metrics and traces see it: no secret, no text. */
export type VonageRequestSeen = ProviderRequestSeen<"vonage">;

export interface VonageProviderOptions extends Omit<HttpProviderOptions<"vonage">, "onRequest"> {
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
  onRequest?: ((seen: VonageRequestSeen) => void) | undefined;
}

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
 * The Vonage Messages API for Viber (`viber_service`) and SMS on the provider skeleton: one
 * `POST /v1/messages` per message with an application JWT made fresh per try, its
 * `message_uuid` kept as the provider message id. Vonage does not deduplicate by `client_ref`,
 * so nothing is sent again once it may have reached Vonage.
 */
export function vonageSpec(options: VonageProviderOptions): HttpProviderSpec<"vonage"> {
  const url = `${(options.apiUrl ?? "https://api.nexmo.com").replace(/\/+$/, "")}/v1/messages`;
  const token = applicationJwt(options.applicationId, options.privateKey);
  return {
    name: "vonage",
    title: "Vonage",
    channels: ["viber", "sms"],
    limits: VONAGE_LIMITS,
    retryUnknownOutcome: false,
    request(message) {
      const base =
        typeof options.callbackBaseUrl === "string"
          ? options.callbackBaseUrl
          : options.callbackBaseUrl();
      return {
        method: "POST",
        url,
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(vonageMessage(message, statusWebhookUrl(base))),
      };
    },
    headersPerTry: async (nowMs) => ({ authorization: `Bearer ${await token(nowMs)}` }),
    accepted(answer) {
      const uuid = (answer.body as VonageMessageAccepted).message_uuid;
      return { accepted: true, providerMessageId: typeof uuid === "string" ? uuid : null };
    },
    errorOf(answer) {
      const error = answer.body as VonageError;
      const title = error.title === undefined ? null : String(error.title);
      return {
        said: error.detail ?? title ?? `HTTP ${answer.status}`,
        code: providerCodeOf(error),
      };
    },
  };
}

/** Vonage as a `ChannelProvider`, behind the skeleton's retries, deadline and breaker. */
export const vonageProvider = (options: VonageProviderOptions): ChannelProvider =>
  httpProvider(vonageSpec(options), options);
