// Test support: Twilio's request to an incoming-message webhook, as Twilio's "Twilio's request
// to your incoming message Webhook URL" page (twilio.com/docs/messaging/guides/webhook-request)
// lists its parameters: MessageSid (with the deprecated SmsSid and SmsMessageSid), AccountSid,
// MessagingServiceSid when the number is in a Messaging Service, From, To, Body, NumMedia,
// NumSegments, SmsStatus "received" and ApiVersion; OptOutType (STOP, START or HELP) only when
// the Messaging Service has Advanced Opt-Out on (twilio.com/docs/messaging/tutorials/
// advanced-opt-out). Form encoded, POSTed, signed with X-Twilio-Signature over the URL and every
// parameter. Tidings' tests sign with the official `twilio` package's
// `getExpectedTwilioSignature`.
import { randomBytes } from "node:crypto";
import { twilioSignature } from "../signature.js";

export interface TwilioInboundMessage {
  /** The person's number, E.164. */
  from: string;
  /** Our number (or short code) they wrote to. */
  to: string;
  body: string;
  /** Default: a fresh `SM…` sid. */
  messageSid?: string | undefined;
  accountSid?: string | undefined;
  messagingServiceSid?: string | undefined;
  /** `STOP`, `START` or `HELP`, as Advanced Opt-Out sends it. */
  optOutType?: string | undefined;
}

/** The form of an incoming message, every parameter a string as Twilio sends them. */
export function twilioInboundForm(message: TwilioInboundMessage): Record<string, string> {
  const sid = message.messageSid ?? `SM${randomBytes(16).toString("hex")}`;
  return {
    ToCountry: "US",
    ToState: "CA",
    SmsMessageSid: sid,
    NumMedia: "0",
    ToCity: "",
    FromZip: "",
    SmsSid: sid,
    FromState: "CA",
    SmsStatus: "received",
    FromCity: "",
    Body: message.body,
    FromCountry: "US",
    To: message.to,
    ...(message.messagingServiceSid ? { MessagingServiceSid: message.messagingServiceSid } : {}),
    ToZip: "",
    NumSegments: "1",
    MessageSid: sid,
    AccountSid: message.accountSid ?? `AC${"0".repeat(32)}`,
    From: message.from,
    ApiVersion: "2010-04-01",
    ...(message.optOutType ? { OptOutType: message.optOutType } : {}),
  };
}

export interface PostTwilioInboundOptions {
  /** Computes the signature (default: Tidings' own); pass twilio's `getExpectedTwilioSignature`. */
  sign?: ((authToken: string, url: string, params: Record<string, string>) => string) | undefined;
  /** Replaces the signature; `null` sends none. */
  signature?: string | null | undefined;
  headers?: Record<string, string> | undefined;
}

/** POSTs `form` to `url` as Twilio does, signed with `authToken`; answers what the server said. */
export async function postTwilioInbound(
  url: string,
  authToken: string,
  form: Record<string, string>,
  options: PostTwilioInboundOptions = {},
): Promise<{ status: number; contentType: string | null; body: string }> {
  const signature =
    options.signature === undefined
      ? (options.sign ?? twilioSignature)(authToken, url, form)
      : options.signature;
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded; charset=utf-8",
      ...(signature === null ? {} : { "x-twilio-signature": signature }),
      ...options.headers,
    },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: await response.text(),
  };
}
