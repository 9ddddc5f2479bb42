import {
  bodyText,
  type CallbackLogger,
  type CallbackRequest,
  type CallbackResponse,
  emptyAnswer,
  headerOf,
  type InboundChannel,
  type InboundReport,
  type InboundSink,
  isJsonObject,
  receiveInbound,
} from "@tidings/core";
import { verifyVonageWebhook } from "./webhook-signature.js";

/** The route label of the application's inbound URL. */
export const VONAGE_INBOUND_ROUTE = "/providers/vonage/inbound";

/** The Messages API's channel names Tidings reads (`viber` is the SDK's alias of Viber's). */
const CHANNELS: Record<string, InboundChannel> = {
  sms: "sms",
  viber_service: "viber",
  viber: "viber",
};

const text = (value: unknown): string | null =>
  typeof value === "string" && value !== "" ? value : null;

/** What an inbound body comes to: a message to hand on, one Tidings does not read, or neither. */
export type VonageInbound = { report: InboundReport } | { skipped: string } | null;

/**
 * An inbound webhook of the Messages API (`channel`, `message_uuid`, `from`, `to`, `timestamp`,
 * `message_type`, `text`): a text on `sms` or `viber_service` is a report; another channel of
 * the application (WhatsApp, MMS, …) or a message with no text (a picture) is skipped; `null`
 * when the body is not an inbound message at all.
 */
export function vonageInbound(body: unknown): VonageInbound {
  if (!isJsonObject(body)) return null;
  const channelName = text(body.channel);
  const messageUuid = text(body.message_uuid);
  const from = text(body.from);
  const to = text(body.to);
  if (channelName === null || messageUuid === null || from === null || to === null) return null;
  const channel = CHANNELS[channelName];
  if (channel === undefined) return { skipped: channelName };
  if (typeof body.text !== "string") {
    const type = text(body.message_type);
    return type === null || type === "text" ? null : { skipped: `${channelName} ${type}` };
  }
  const time = typeof body.timestamp === "string" ? Date.parse(body.timestamp) : Number.NaN;
  return {
    report: {
      provider: "vonage",
      providerMessageId: messageUuid,
      channel,
      from,
      to,
      text: body.text,
      receivedAt: Number.isNaN(time) ? null : new Date(time),
      // `sms.keyword` is only the first word, upper-cased: no reading of what it means.
      providerKeywordClass: null,
    },
  };
}

export interface VonageInboundOptions {
  signatureSecret: string;
  apiKey?: string | undefined;
  /** Now, in ms, for the signature's `iat`. */
  nowMs: number;
  sink: InboundSink;
  logger: CallbackLogger;
}

/**
 * The application's inbound URL (`POST /inbound`): JSON, signed as the status webhooks are (an
 * HS256 JWT with the signature secret, `api_key`, a recent `iat` and the body's `payload_hash`).
 * Unsigned or refused signature: 403. Not an inbound message: 400. A text on SMS or Viber goes to
 * `sink`, and the answer is 200 whatever the sink made of it (another channel or a message with
 * no text: 200, skipped); a sink that throws is answered 503 by the app, so Vonage retries.
 */
export async function handleVonageInbound(
  request: CallbackRequest,
  options: VonageInboundOptions,
): Promise<CallbackResponse> {
  const route = VONAGE_INBOUND_ROUTE;
  const { logger } = options;
  if (request.method !== "POST") return emptyAnswer(405, route, { allow: "POST" });
  const verdict = await verifyVonageWebhook(
    headerOf(request, "authorization"),
    request.body ?? "",
    { signatureSecret: options.signatureSecret, apiKey: options.apiKey, nowMs: options.nowMs },
  );
  if (!verdict.ok) {
    logger.warn("vonage inbound refused", { route, reason: verdict.reason });
    return emptyAnswer(403, route);
  }
  let inbound: VonageInbound;
  try {
    inbound = vonageInbound(JSON.parse(bodyText(request.body)));
  } catch {
    inbound = null;
  }
  if (inbound === null) {
    logger.warn("vonage inbound refused: not an inbound message", { route });
    return emptyAnswer(400, route);
  }
  if ("skipped" in inbound) {
    logger.info("vonage inbound message skipped: not a text on sms or viber", {
      provider: "vonage",
      kind: inbound.skipped,
    });
    return emptyAnswer(200, route);
  }
  await receiveInbound(options.sink, logger, inbound.report);
  return emptyAnswer(200, route);
}
