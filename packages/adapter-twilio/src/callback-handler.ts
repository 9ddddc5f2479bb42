import {
  type CallbackApp,
  type CallbackLogger,
  callbackApp,
  type Deps,
  emptyAnswer,
  type InboundSink,
  isUuidV7,
  recordUpstreamReport,
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

const ROUTE = "/providers/twilio/status";

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
  return callbackApp("twilio", logger, async (request) => {
    const path = request.url.split("?", 1)[0];
    if (path === "/inbound" && options.inbound !== undefined) {
      return handleTwilioInbound(request, {
        authToken: options.authToken,
        webhookKeys: options.webhookKeys,
        url: baseUrl() + request.url,
        sink: options.inbound,
        logger,
      });
    }
    if (path !== "/status") return emptyAnswer(404, "/providers/twilio");
    if (request.method !== "POST") return emptyAnswer(405, ROUTE, { allow: "POST" });
    const signed = signedForm(request, options, baseUrl() + request.url, {
      route: ROUTE,
      what: "callback",
      logger,
    });
    if (!signed.ok) return signed.answer;
    const { params } = signed;
    const messageId = new URLSearchParams(request.url.slice(path.length + 1)).get("m") ?? "";
    const status = one(params, "MessageStatus") ?? one(params, "SmsStatus") ?? "";
    const report = reportOf(status, one(params, "ErrorCode") || null);
    const sentFrom = one(params, "From");
    if (report === null && (sentFrom === null || !isUuidV7(messageId))) {
      return emptyAnswer(200, ROUTE);
    }
    if (!isUuidV7(messageId)) {
      logger.warn("twilio callback for no Tidings message", { route: ROUTE, status });
      return emptyAnswer(200, ROUTE);
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
      return emptyAnswer(200, ROUTE);
    }
    const providerCode = one(params, "ErrorCode") || null;
    const recorded = await recordUpstreamReport(options.deps, {
      ...leg,
      sentFrom,
      status: report,
      providerCode,
      ...(providerCode === null ? {} : { description: `Twilio error ${providerCode}.` }),
    });
    if (recorded.isErr()) {
      // Answered 200 all the same, so Twilio stops retrying a report nobody can use.
      logger.info("twilio report for an unknown message", { messageId, status });
    } else if (recorded.value.ignored !== null) {
      logger.info("twilio report ignored", { messageId, status, why: recorded.value.ignored });
    } else if (report !== "seen" && messageSid !== null && recorded.value.applied) {
      options.onFinal?.(messageId, messageSid);
    }
    return emptyAnswer(200, ROUTE);
  });
}
