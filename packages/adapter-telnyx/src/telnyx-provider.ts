import type { KeyObject } from "node:crypto";
import {
  type ChannelProvider,
  type HttpProviderOptions,
  type HttpProviderSpec,
  httpProvider,
  type ProviderIdentity,
} from "@tidings/core";

/**
 * Telnyx Messaging: SMS only. What it takes: 10 parts of SMS by default, 1,530 GSM-7 characters
 * (a UCS-2 text gets 670, and Telnyx refuses a longer one with 40302); a send has no time to
 * live of its own.
 */
export const TELNYX: ProviderIdentity<"telnyx"> = {
  name: "telnyx",
  title: "Telnyx",
  channels: ["sms"],
  limits: { text: { sms: 1530 }, ttlSeconds: {} },
};

/** Telnyx's settings (`TIDINGS_TELNYX_*`). */
export interface TelnyxSettings {
  /** The API key (v2), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** The account's webhook public key (see `telnyxPublicKey`). */
  publicKey: KeyObject;
  /** The messaging profile to send with (needed for alphanumeric senders and number pools). */
  messagingProfileId?: string | null | undefined;
  /** The API origin, `https://api.telnyx.com` (tests point it at a fake). */
  apiUrl: string;
}

export interface TelnyxProviderOptions
  extends HttpProviderOptions<"telnyx">,
    Omit<TelnyxSettings, "publicKey"> {
  /** The public URL of the mounted callbacks, e.g. `https://tidings.example.com/providers/telnyx`. */
  callbackBaseUrl: () => string;
}

type TelnyxErrors = { errors?: Array<{ code?: unknown; title?: unknown; detail?: unknown }> };

/**
 * Telnyx on the provider skeleton: one `POST /v2/messages` per message, JSON, with its own
 * `webhook_url` (the status route, the message id in its query); the answer's `data.id` is the
 * provider message id. Telnyx has no idempotency key, so nothing is sent again once it may have
 * reached Telnyx.
 */
export function telnyxSpec(options: TelnyxProviderOptions): HttpProviderSpec<"telnyx"> {
  const url = `${options.apiUrl.replace(/\/+$/, "")}/v2/messages`;
  const profile = options.messagingProfileId;
  return {
    ...TELNYX,
    retryUnknownOutcome: false,
    request(message) {
      const hooks = options.callbackBaseUrl().replace(/\/+$/, "");
      const body = {
        from: message.sender,
        to: message.phoneNumber,
        text: message.body,
        webhook_url: `${hooks}/status?m=${encodeURIComponent(message.messageId)}`,
        ...(profile == null ? {} : { messaging_profile_id: profile }),
      };
      const headers = {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${options.apiKey}`,
      };
      return { method: "POST", url, headers, body: JSON.stringify(body) };
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
  httpProvider(telnyxSpec(options), options);
