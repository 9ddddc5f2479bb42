import {
  type CallbackApp,
  type CallbackLogger,
  type CallbackRoute,
  type Deps,
  emptyAnswer,
  type InboundSink,
  isUuidV7,
  postRoutes,
  recordCallbackReport,
  recordUpstreamSentFrom,
} from "@tidings/core";
import { handleTwilioInbound } from "./inbound-handler.js";
import type { TwilioParams } from "./signature.js";
import { signedForm } from "./signed-request.js";
import { reportOf } from "./status-map.js";

export interface TwilioCallbackOptions {
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox" | "telemetry">;
  /** The account's auth token: the key of `X-Twilio-Signature`. */
  authToken: string;
  /**
   * The secrets of Twilio webhook signing keys by key id (`TIDINGS_TWILIO_WEBHOOK_KEYS`): a
   * request carrying `X-Twilio-Webhooks-Signature-Settings: key={id},algorithm=…` is verified
   * with the named key's secret instead of the auth token.
   */
  webhookKeys?: Readonly<Record<string, string>> | undefined;
  /**
   * The public URL these callbacks are mounted at, as Twilio calls it (the send's
   * `callbackBaseUrl`), e.g. `https://tidings.example.com/providers/twilio`. Signatures are
   * checked against it, never against the `Host` a proxy passed on.
   */
  publicBaseUrl: string | (() => string);
  logger: CallbackLogger;
  /**
   * Where incoming messages go: with it the same app also serves `POST /inbound`, Twilio's
   * incoming-message webhook; without it `/inbound` is 404.
   */
  inbound?: InboundSink | undefined;
  /**
   * Told of each message whose final status (delivered, undelivered, failed) was recorded, with
   * Twilio's sid, to read its price later (`twilioPriceFetcher`, `TIDINGS_TWILIO_FETCH_PRICE=1`).
   */
  onFinal?: ((messageId: string, messageSid: string) => void) | undefined;
}

/** A parameter's single value (the first, if it was repeated). */
const one = (params: TwilioParams, name: string): string | null => {
  const value = params[name];
  return value === undefined ? null : Array.isArray(value) ? (value[0] ?? null) : value;
};

/**
 * Twilio's status callbacks, mounted at `/providers/twilio`: `POST /status?m={message_id}`,
 * form encoded, signed with `X-Twilio-Signature` over the public URL and every parameter.
 * A missing or wrong signature is 403 and changes nothing. A request signed under webhook
 * signing settings (`X-Twilio-Webhooks-Signature-Settings`, HMAC-SHA256) is verified with the
 * named key's secret; an unknown key or algorithm is 403 and logged. A verified report answers
 * 200 with an empty body once stored, also when it changes nothing (intermediate, repeated,
 * backwards, another leg, unknown message).
 * With `inbound`, the same app serves `POST /inbound`, the incoming-message webhook, signed and
 * checked the same way (see `handleTwilioInbound`).
 */
export function twilioCallbacks(options: TwilioCallbackOptions): CallbackApp {
  const baseUrl = (): string => {
    const base = options.publicBaseUrl;
    return (typeof base === "string" ? base : base()).replace(/\/+$/, "");
  };
  const { logger } = options;
  const sink = options.inbound;
  const inbound: CallbackRoute | undefined =
    sink &&
    ((request) =>
      handleTwilioInbound(request, { ...options, url: baseUrl() + request.url, sink, logger }));
  const statusRoute: CallbackRoute = async (request, route, query) => {
    const url = baseUrl() + request.url;
    const signed = signedForm(request, options, url, { route, what: "callback", logger });
    if (!signed.ok) return signed.answer;
    const { params } = signed;
    const messageId = query.get("m") ?? "";
    const status = one(params, "MessageStatus") ?? one(params, "SmsStatus") ?? "";
    const report = reportOf(status, one(params, "ErrorCode") || null);
    const sentFrom = one(params, "From");
    if (report === null && (sentFrom === null || !isUuidV7(messageId))) {
      return emptyAnswer(200, route);
    }
    const messageSid = one(params, "MessageSid") ?? one(params, "SmsSid");
    const leg = {
      messageId,
      channel: "sms" as const,
      provider: "twilio",
      providerMessageId: messageSid,
    };
    if (report === null) {
      // An intermediate status changes nothing, but says which number a Messaging Service
      // sent from: replies to that number belong to this message's organization.
      if (sentFrom !== null) await recordUpstreamSentFrom(options.deps, { ...leg, sentFrom });
      return emptyAnswer(200, route);
    }
    const providerCode = one(params, "ErrorCode") || null;
    const recorded = await recordCallbackReport(options.deps, logger, {
      ...leg,
      sentFrom,
      status: report,
      providerCode,
      ...(providerCode === null ? {} : { description: `Twilio error ${providerCode}.` }),
    });
    if (recorded?.applied && report !== "seen" && messageSid !== null) {
      options.onFinal?.(messageId, messageSid);
    }
    return emptyAnswer(200, route);
  };
  return postRoutes("twilio", logger, { "/status": statusRoute, "/inbound": inbound });
}
