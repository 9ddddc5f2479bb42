import type { KeyObject } from "node:crypto";
import {
  bodyText,
  type CallbackApp,
  type CallbackLogger,
  callbackApp,
  type Deps,
  emptyAnswer,
  headerOf,
  type InboundReport,
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
  /** Where inbound messages (`message.received`) go; without it they are dropped. */
  inbound?: InboundSink | undefined;
}

/** What a recipient's status means (`null`: nothing; `delivery_unconfirmed` stays `sent`). */
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
const firstOf = (v: unknown): Json => (Array.isArray(v) && isObject(v[0]) ? v[0] : {});

/** A webhook's `data.event_type` and `data.payload`; `null` when the body is no event. */
function eventOf(text: string): { type: string | null; payload: Json } | null {
  try {
    const data: unknown = (JSON.parse(text) as { data?: unknown } | null)?.data;
    if (!isObject(data) || !isObject(data.payload)) return null;
    return { type: textOf(data.event_type), payload: data.payload };
  } catch {
    return null;
  }
}

/** A `message.received` payload as an inbound SMS, or `null` when it has no text. */
function inboundOf(payload: Json): InboundReport | null {
  const id = textOf(payload.id);
  const from = isObject(payload.from) ? textOf(payload.from.phone_number) : null;
  const to = textOf(firstOf(payload.to).phone_number);
  if (id === null || from === null || to === null || typeof payload.text !== "string") return null;
  const received = Date.parse(textOf(payload.received_at) ?? "");
  // What `autoresponse_type` may say is not documented: keywords are matched instead.
  const receivedAt = Number.isNaN(received) ? null : new Date(received);
  const common = { provider: "telnyx", providerMessageId: id, channel: "sms" as const };
  return { ...common, from, to, text: payload.text, receivedAt, providerKeywordClass: null };
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
      { publicKey: options.publicKey, nowMs: deps.clock.now() },
    );
    if (!verdict.ok) {
      logger.warn("telnyx webhook refused", { route, reason: verdict.reason });
      return emptyAnswer(403, route);
    }
    const event = eventOf(bodyText(request.body));
    if (event === null) return emptyAnswer(400, route);
    const { payload } = event;
    if (event.type === "message.received") {
      const report = inboundOf(payload);
      const outcome = report && (await options.inbound?.receive(report));
      if (outcome === "no_owner" || outcome === "bad_sender" || report === null) {
        logger.info("telnyx inbound message not stored", { route, outcome: outcome ?? "no_text" });
      }
      return emptyAnswer(200, route);
    }
    const status = textOf(firstOf(payload.to).status) ?? "";
    const report = Object.hasOwn(TELNYX_STATUSES, status) ? TELNYX_STATUSES[status] : null;
    const messageId = new URLSearchParams(request.url.slice(path.length + 1)).get("m") ?? "";
    const reporting = event.type === "message.sent" || event.type === "message.finalized";
    if (!reporting || !report) return emptyAnswer(200, route);
    if (!isUuidV7(messageId)) {
      logger.info("telnyx status for no Tidings message", { route, status });
      return emptyAnswer(200, route);
    }
    const error = firstOf(payload.errors);
    const code = typeof error.code === "number" ? String(error.code) : textOf(error.code);
    const description = textOf(error.detail) ?? textOf(error.title);
    const recorded = await recordUpstreamReport(deps, {
      messageId,
      channel: "sms",
      provider: "telnyx",
      providerMessageId: textOf(payload.id),
      status: report,
      providerCode: code,
      ...(description === null ? {} : { description }),
    });
    const why = recorded.isErr() ? "unknown message" : recorded.value.ignored;
    if (why !== null) logger.info("telnyx status ignored", { messageId, status, why });
    return emptyAnswer(200, route);
  });
}
