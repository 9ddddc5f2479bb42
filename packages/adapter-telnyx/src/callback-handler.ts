import type { KeyObject } from "node:crypto";
import {
  bodyText,
  type CallbackApp,
  type CallbackLogger,
  type Clock,
  callbackApp,
  type Deps,
  emptyAnswer,
  headerOf,
  type InboundSink,
  isUuidV7,
  type ProviderReport,
  recordUpstreamReport,
} from "@tidings/core";
import { verifyTelnyxWebhook } from "./webhook-signature.js";

export interface TelnyxCallbackOptions {
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox">;
  /** The account's Ed25519 public key (see `telnyxPublicKey`). */
  publicKey: KeyObject;
  logger: CallbackLogger;
  /** The clock the timestamp is checked against (default: `deps.clock`). */
  clock?: Clock | undefined;
  /** Where inbound messages (`message.received`) go; without it they are logged and dropped. */
  inbound?: InboundSink | undefined;
}

/**
 * What a recipient's status means for the lifecycle (`null`: nothing yet). `delivery_unconfirmed`
 * (the carrier sent no receipt) changes nothing: the message stays `sent`.
 */
export const TELNYX_STATUSES: Readonly<Record<string, ProviderReport | null>> = {
  queued: null,
  sending: null,
  sent: null,
  delivered: "delivered",
  delivery_failed: "failed",
  sending_failed: "failed",
  expired: "expired",
  delivery_unconfirmed: null,
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const textOf = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** The event of a webhook body: `data.event_type` and `data.payload`; `null` if not one. */
function eventOf(text: string): { type: string; payload: Json } | null {
  try {
    const body: unknown = JSON.parse(text);
    const data = isObject(body) ? body.data : null;
    if (!isObject(data) || !isObject(data.payload)) return null;
    const type = textOf(data.event_type);
    return type === null ? null : { type, payload: data.payload };
  } catch {
    return null;
  }
}

/**
 * Telnyx's webhooks, mounted at `/providers/telnyx`: `POST /status?m={message_id}` (each
 * message's `webhook_url`) and `POST /inbound` (the messaging profile's webhook URL), JSON,
 * signed with Ed25519. An unsigned, forged or stale one is 403 and changes nothing. On either
 * route, `message.sent` and `message.finalized` are delivery reports (applied only where `m`
 * names the message) and `message.received` an inbound message for `inbound`. A verified
 * webhook answers 200 with an empty body once stored, also when it changes nothing.
 */
export function telnyxCallbacks(options: TelnyxCallbackOptions): CallbackApp {
  const { logger } = options;
  const clock = options.clock ?? options.deps.clock;
  return callbackApp("telnyx", logger, async (request) => {
    const path = request.url.split("?", 1)[0] ?? "";
    if (path !== "/status" && path !== "/inbound") return emptyAnswer(404, "/providers/telnyx");
    const route = `/providers/telnyx${path}`;
    if (request.method !== "POST") return emptyAnswer(405, route, { allow: "POST" });
    const verdict = verifyTelnyxWebhook(
      {
        signature: headerOf(request, "telnyx-signature-ed25519"),
        timestamp: headerOf(request, "telnyx-timestamp"),
      },
      request.body ?? "",
      { publicKey: options.publicKey, nowMs: clock.now() },
    );
    if (!verdict.ok) {
      logger.warn("telnyx webhook refused", { route, reason: verdict.reason });
      return emptyAnswer(403, route);
    }
    const event = eventOf(bodyText(request.body));
    if (event === null) return emptyAnswer(400, route);
    const { payload } = event;
    if (event.type === "message.received") {
      const to = Array.isArray(payload.to) && isObject(payload.to[0]) ? payload.to[0] : {};
      const from = isObject(payload.from) ? textOf(payload.from.phone_number) : null;
      const id = textOf(payload.id);
      const number = textOf(to.phone_number);
      if (id === null || from === null || number === null || typeof payload.text !== "string") {
        logger.info("telnyx inbound message skipped: no text", { route });
        return emptyAnswer(200, route);
      }
      if (options.inbound === undefined) return emptyAnswer(200, route);
      const received = Date.parse(textOf(payload.received_at) ?? "");
      const outcome = await options.inbound.receive({
        provider: "telnyx",
        providerMessageId: id,
        channel: "sms",
        from,
        to: number,
        text: payload.text,
        receivedAt: Number.isNaN(received) ? null : new Date(received),
        // What `autoresponse_type` may say is not documented: keywords are matched instead.
        providerKeywordClass: null,
      });
      if (outcome === "no_owner" || outcome === "bad_sender") {
        logger.info("telnyx inbound message not stored", { provider: "telnyx", outcome });
      }
      return emptyAnswer(200, route);
    }
    if (event.type !== "message.sent" && event.type !== "message.finalized") {
      return emptyAnswer(200, route);
    }
    const recipient = Array.isArray(payload.to) && isObject(payload.to[0]) ? payload.to[0] : {};
    const status = textOf(recipient.status) ?? "";
    const report = Object.hasOwn(TELNYX_STATUSES, status) ? TELNYX_STATUSES[status] : null;
    if (report === null || report === undefined) return emptyAnswer(200, route);
    const messageId = new URLSearchParams(request.url.slice(path.length + 1)).get("m") ?? "";
    if (!isUuidV7(messageId)) {
      logger.info("telnyx status for no Tidings message", { route, status });
      return emptyAnswer(200, route);
    }
    const error =
      Array.isArray(payload.errors) && isObject(payload.errors[0]) ? payload.errors[0] : {};
    const code = textOf(error.code) ?? (typeof error.code === "number" ? String(error.code) : null);
    const description = textOf(error.detail) ?? textOf(error.title);
    const recorded = await recordUpstreamReport(options.deps, {
      messageId,
      channel: "sms",
      provider: "telnyx",
      providerMessageId: textOf(payload.id),
      status: report,
      providerCode: code,
      ...(description === null ? {} : { description }),
    });
    if (recorded.isErr()) {
      logger.info("telnyx status for an unknown message", { messageId, status });
    } else if (recorded.value.ignored !== null) {
      logger.info("telnyx status ignored", { messageId, status, why: recorded.value.ignored });
    }
    return emptyAnswer(200, route);
  });
}
