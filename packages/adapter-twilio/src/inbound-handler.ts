import {
  type CallbackLogger,
  type CallbackRequest,
  type CallbackResponse,
  emptyAnswer,
  type InboundReport,
  type InboundSink,
  type ProviderKeywordClass,
  receiveInbound,
} from "@tidings/core";
import type { TwilioParams } from "./signature.js";
import { signedForm, type TwilioSigningSecrets } from "./signed-request.js";

/** The route label of Twilio's incoming-message webhook. */
export const TWILIO_INBOUND_ROUTE = "/providers/twilio/inbound";

/**
 * The answer Twilio wants from an incoming-message webhook: TwiML with no verbs, so nothing is
 * sent back from here (Twilio's own STOP and HELP replies still go out).
 */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

/** Twilio's `OptOutType` (sent when Advanced Opt-Out is on) as what the provider said it was. */
const KEYWORD_CLASSES: Record<string, ProviderKeywordClass> = {
  STOP: "opt_out",
  START: "opt_in",
  HELP: "help",
};

const one = (params: TwilioParams, name: string): string | null => {
  const value = params[name];
  return value === undefined ? null : Array.isArray(value) ? (value[0] ?? null) : value;
};

/**
 * The incoming message a verified form describes, or `null` when it is not Twilio's
 * incoming-message request (no `MessageSid`, `From` or `To`). `Body` may be absent (a picture
 * alone) and is then empty.
 */
export function twilioInboundReport(params: TwilioParams): InboundReport | null {
  const messageSid = one(params, "MessageSid") || one(params, "SmsMessageSid");
  const from = one(params, "From");
  const to = one(params, "To");
  if (!messageSid || !from || !to) return null;
  const optOutType = one(params, "OptOutType")?.trim().toUpperCase() ?? "";
  return {
    provider: "twilio",
    providerMessageId: messageSid,
    channel: "sms",
    from,
    to,
    text: one(params, "Body") ?? "",
    // Twilio's incoming-message request carries no time of its own.
    receivedAt: null,
    providerKeywordClass: KEYWORD_CLASSES[optOutType] ?? null,
  };
}

export interface TwilioInboundOptions extends TwilioSigningSecrets {
  /** The public URL of this request as Twilio called it (base URL plus path and query). */
  url: string;
  sink: InboundSink;
  logger: CallbackLogger;
}

const twiml = (): CallbackResponse => ({
  status: 200,
  headers: { "content-type": "text/xml; charset=utf-8" },
  body: EMPTY_TWIML,
  route: TWILIO_INBOUND_ROUTE,
});

/**
 * Twilio's incoming-message webhook (`POST /inbound`, the number's or Messaging Service's "A
 * message comes in" URL): form encoded and signed with `X-Twilio-Signature` exactly as the
 * status callbacks are (webhook signing settings included). Unsigned or forged: 403. Signed
 * but not an incoming message: 400. Otherwise the message goes to `sink`, and whatever it makes
 * of it the answer is 200 with empty TwiML; a sink that throws is answered 503 by the app.
 */
export async function handleTwilioInbound(
  request: CallbackRequest,
  options: TwilioInboundOptions,
): Promise<CallbackResponse> {
  const { logger } = options;
  const route = TWILIO_INBOUND_ROUTE;
  if (request.method !== "POST") return emptyAnswer(405, route, { allow: "POST" });
  const signed = signedForm(request, options, options.url, { route, what: "inbound", logger });
  if (!signed.ok) return signed.answer;
  const { params } = signed;
  const report = twilioInboundReport(params);
  if (report === null) {
    logger.warn("twilio inbound refused: not an incoming message", { route });
    return emptyAnswer(400, route);
  }
  await receiveInbound(options.sink, logger, report);
  return twiml();
}
