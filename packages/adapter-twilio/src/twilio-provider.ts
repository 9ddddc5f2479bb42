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
import type { TwilioMessage, TwilioRestError } from "./wire.js";

/** One request to Twilio as the host's metrics and traces see it: no secret, no text. */
export type TwilioRequestSeen = ProviderRequestSeen<"twilio">;

export interface TwilioProviderOptions extends Omit<HttpProviderOptions<"twilio">, "onRequest"> {
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
  /** Told about every request, for metrics and traces. */
  onRequest?: ((seen: TwilioRequestSeen) => void) | undefined;
}

/** What Twilio takes: a `Body` of at most 1,600 characters, a validity of 1–36,000 s. */
export const TWILIO_LIMITS: ProviderLimits = {
  text: { sms: 1600 },
  ttlSeconds: { sms: { min: 1, max: 36_000 } },
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
  form.set("ValidityPeriod", String(clampTtl(TWILIO_LIMITS, "sms", message.ttlSeconds)));
  form.set("StatusCallback", statusCallbackUrl(options.callbackBaseUrl, message.messageId));
  return form;
}

/**
 * Twilio Programmable Messaging for SMS on the provider skeleton: one `POST …/Messages.json`
 * per message, its `sid` kept as the provider message id. Nothing is sent again once it may
 * have reached Twilio (Twilio cannot tell a repeated request from a new message); a full queue
 * (21611) is tried again like a 429.
 */
export function twilioSpec(options: TwilioProviderOptions): HttpProviderSpec<"twilio"> {
  const apiUrl = (options.apiUrl ?? "https://api.twilio.com").replace(/\/+$/, "");
  const url = `${apiUrl}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
  const user = options.apiKeySid ?? options.accountSid;
  const password = options.apiKeySid ? (options.apiKeySecret ?? "") : options.authToken;
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  return {
    name: "twilio",
    title: "Twilio",
    channels: ["sms"],
    limits: TWILIO_LIMITS,
    retryUnknownOutcome: false,
    rateLimitCode: 20429,
    request(message) {
      const base = options.callbackBaseUrl;
      const callbackBaseUrl = typeof base === "string" ? base : base();
      const form = messageForm(message, { ...options, callbackBaseUrl });
      return {
        method: "POST",
        url,
        headers: {
          authorization,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: form.toString(),
      };
    },
    accepted(answer) {
      const { sid, from } = answer.body as Partial<TwilioMessage>;
      return {
        accepted: true,
        providerMessageId: typeof sid === "string" ? sid : null,
        // Null with a Messaging Service, which picks the number later: its callbacks give it.
        sentFrom: typeof from === "string" ? from : null,
      };
    },
    errorOf(answer) {
      const error = answer.body as TwilioRestError;
      return {
        said: typeof error.message === "string" ? error.message : `HTTP ${answer.status}`,
        code: typeof error.code === "number" ? error.code : null,
      };
    },
    temporary: (_answer, error) => error.code === QUEUE_FULL,
  };
}

/** Twilio as a `ChannelProvider` (SMS), behind the skeleton's retries, deadline and breaker. */
export const twilioProvider = (options: TwilioProviderOptions): ChannelProvider =>
  httpProvider(twilioSpec(options), options);
