import {
  bodyText,
  type CallbackApp,
  type CallbackRoute,
  emptyAnswer,
  headerOf,
  type InboundReport,
  type InboundSink,
  isJsonObject,
  type ProviderReport,
  type ProviderRoutesHost,
  postRoutes,
  receiveInbound,
  recordCallbackReport,
  type UpstreamReport,
} from "@tidings/core";
import type { TelnyxSettings } from "./telnyx-provider.js";
import { verifyTelnyxWebhook } from "./webhook-signature.js";

export interface TelnyxCallbackOptions
  extends Pick<ProviderRoutesHost, "deps" | "logger">,
    Pick<TelnyxSettings, "publicKey"> {
  /** Where inbound messages (`message.received`) go; without it they are dropped. */
  inbound?: InboundSink | undefined;
}

/**
 * What a recipient's final status means; the others (`queued`, `sending`, `sent`, and
 * `delivery_unconfirmed`, which leaves the message `sent`) change nothing.
 */
export const TELNYX_STATUSES: Readonly<Record<string, ProviderReport>> = {
  delivered: "delivered",
  delivery_failed: "failed",
  sending_failed: "failed",
  expired: "expired",
};

type Json = Record<string, unknown>;
const textOf = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const firstOf = (v: unknown): Json => (Array.isArray(v) && isJsonObject(v[0]) ? v[0] : {});

/** A webhook's `data.event_type` and `data.payload`; `null` when the body is no event. */
function eventOf(text: string): { type: string | null; payload: Json } | null {
  try {
    const data: unknown = (JSON.parse(text) as { data?: unknown } | null)?.data;
    if (!isJsonObject(data) || !isJsonObject(data.payload)) return null;
    return { type: textOf(data.event_type), payload: data.payload };
  } catch {
    return null;
  }
}

/** A `message.received` payload as an inbound SMS, or `null` when it has no text. */
function inboundOf(payload: Json): InboundReport | null {
  const id = textOf(payload.id);
  const from = isJsonObject(payload.from) ? textOf(payload.from.phone_number) : null;
  const to = textOf(firstOf(payload.to).phone_number);
  if (id === null || from === null || to === null || typeof payload.text !== "string") return null;
  const received = Date.parse(textOf(payload.received_at) ?? "");
  // What `autoresponse_type` may say is not documented: keywords are matched instead.
  const receivedAt = Number.isNaN(received) ? null : new Date(received);
  const common = { provider: "telnyx", providerMessageId: id, channel: "sms" as const };
  return { ...common, from, to, text: payload.text, receivedAt, providerKeywordClass: null };
}

/** A `message.sent` or `message.finalized` payload as a report on `messageId`, if it is one. */
function reportOf(payload: Json, messageId: string): UpstreamReport | null {
  const status = textOf(firstOf(payload.to).status) ?? "";
  const report = Object.hasOwn(TELNYX_STATUSES, status) ? TELNYX_STATUSES[status] : undefined;
  if (report === undefined) return null;
  const error = firstOf(payload.errors);
  const description = textOf(error.detail) ?? textOf(error.title);
  return {
    messageId,
    channel: "sms",
    provider: "telnyx",
    providerMessageId: textOf(payload.id),
    status: report,
    providerCode: typeof error.code === "number" ? String(error.code) : textOf(error.code),
    ...(description === null ? {} : { description }),
  };
}

/**
 * Telnyx's webhooks, mounted at `/providers/telnyx`: `POST /status?m={message_id}` (each
 * message's `webhook_url`) and `POST /inbound` (the messaging profile's), JSON signed with
 * Ed25519. Unsigned, forged or stale: 403, nothing changes. `message.sent` and
 * `message.finalized` are reports on the message `m` names; `message.received` goes to
 * `inbound`. A verified webhook answers 200 with an empty body once stored.
 */
export function telnyxCallbacks(options: TelnyxCallbackOptions): CallbackApp {
  const { logger, deps } = options;
  const webhook: CallbackRoute = async (request, route, query) => {
    const verdict = verifyTelnyxWebhook(
      {
        signature: headerOf(request, "telnyx-signature-ed25519"),
        timestamp: headerOf(request, "telnyx-timestamp"),
      },
      request.body ?? "",
      { publicKey: options.publicKey, nowMs: deps.clock.now() },
    );
    if (!verdict.ok) {
      logger.warn("telnyx webhook refused", { route, reason: verdict.reason });
      return emptyAnswer(403, route);
    }
    const event = eventOf(bodyText(request.body));
    if (event === null) return emptyAnswer(400, route);
    if (event.type === "message.received") {
      const report = inboundOf(event.payload);
      if (report === null) logger.info("telnyx inbound message skipped: no text", { route });
      else if (options.inbound) await receiveInbound(options.inbound, logger, report);
    } else if (event.type === "message.sent" || event.type === "message.finalized") {
      const report = reportOf(event.payload, query.get("m") ?? "");
      if (report !== null) await recordCallbackReport(deps, logger, report);
    }
    return emptyAnswer(200, route);
  };
  return postRoutes("telnyx", logger, { "/status": webhook, "/inbound": webhook });
}
