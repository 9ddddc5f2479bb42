import {
  type ChannelProvider,
  type HttpProviderOptions,
  type HttpProviderSpec,
  httpProvider,
  type OutboundMessage,
  type ProviderLimits,
} from "@tidings/core";
import { undiciTransport } from "./transport.js";

export interface TelnyxProviderOptions extends Omit<HttpProviderOptions<"telnyx">, "transport"> {
  /** The API key (v2), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** The messaging profile to send with (needed for alphanumeric senders and number pools). */
  messagingProfileId?: string | undefined;
  /** The API origin (default `https://api.telnyx.com`); tests point it at a fake. */
  apiUrl?: string | undefined;
  /** The public URL of the mounted callbacks, e.g. `https://tidings.example.com/providers/telnyx`. */
  callbackBaseUrl: string | (() => string);
}

/**
 * What Telnyx takes: 10 parts of SMS by default, 1,530 GSM-7 characters (a UCS-2 text gets 670,
 * and Telnyx refuses a longer one with 40302). A send has no time to live of its own.
 */
export const TELNYX_LIMITS: ProviderLimits = { text: { sms: 1530 }, ttlSeconds: {} };

/** The status webhook URL of one message: the message id rides in the query. */
export const statusWebhookUrl = (callbackBaseUrl: string, messageId: string): string =>
  `${callbackBaseUrl.replace(/\/+$/, "")}/status?m=${encodeURIComponent(messageId)}`;

/** The body of `POST /v2/messages` for one message. */
export function telnyxMessage(
  message: OutboundMessage,
  webhookUrl: string,
  messagingProfileId: string | undefined,
): Record<string, string> {
  return {
    from: message.sender,
    to: message.phoneNumber,
    text: message.body,
    webhook_url: webhookUrl,
    ...(messagingProfileId === undefined ? {} : { messaging_profile_id: messagingProfileId }),
  };
}

type TelnyxErrors = { errors?: Array<{ code?: unknown; title?: unknown; detail?: unknown }> };

/**
 * Telnyx Messaging (SMS) on the provider skeleton: one `POST /v2/messages` per message with
 * its own `webhook_url`, the answer's `data.id` kept as the provider message id. Telnyx has no
 * idempotency key, so nothing is sent again once it may have reached Telnyx.
 */
export function telnyxSpec(options: TelnyxProviderOptions): HttpProviderSpec<"telnyx"> {
  const url = `${(options.apiUrl ?? "https://api.telnyx.com").replace(/\/+$/, "")}/v2/messages`;
  return {
    name: "telnyx",
    title: "Telnyx",
    channels: ["sms"],
    limits: TELNYX_LIMITS,
    retryUnknownOutcome: false,
    request(message) {
      const base = options.callbackBaseUrl;
      const hook = statusWebhookUrl(typeof base === "string" ? base : base(), message.messageId);
      return {
        method: "POST",
        url,
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: `Bearer ${options.apiKey}`,
        },
        body: JSON.stringify(telnyxMessage(message, hook, options.messagingProfileId)),
      };
    },
    accepted(answer) {
      const id = (answer.body.data as { id?: unknown } | undefined)?.id;
      return { accepted: true, providerMessageId: typeof id === "string" ? id : null };
    },
    errorOf(answer) {
      const first = (answer.body as TelnyxErrors).errors?.[0];
      const words = [first?.title, first?.detail].filter((w) => typeof w === "string");
      return {
        said: words.length > 0 ? words.join(": ") : `HTTP ${answer.status}`,
        code: typeof first?.code === "string" ? first.code : null,
      };
    },
  };
}

/** Telnyx as a `ChannelProvider`, behind the skeleton's retries, deadline and breaker. */
export const telnyxProvider = (options: TelnyxProviderOptions): ChannelProvider =>
  httpProvider(telnyxSpec(options), { ...options, transport: undiciTransport });
