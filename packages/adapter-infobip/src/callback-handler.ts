import {
  bodyText,
  type CallbackApp,
  type CallbackLogger,
  callbackApp,
  type Deps,
  emptyAnswer,
  type InboundSink,
  isUuidV7,
  type ProviderReport,
  recordCallbackReport,
  recordUpstreamPrice,
} from "@tidings/core";
import { callbackKey, checkLegToken, splitLegSegment } from "./callback-token.js";
import { handleInfobipInbound, inboundTokenDigests } from "./inbound-handler.js";
import { parseLegId } from "./legs.js";
import { descriptionOf, providerCodeOf, reportOf } from "./status-map.js";
import type { InfobipDeliveryReport, InfobipSeenReport } from "./wire.js";

export interface InfobipCallbackOptions {
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox" | "telemetry">;
  /** The server's secret key, as given to `infobipProvider`. */
  secretKey: Uint8Array;
  logger: CallbackLogger;
  /**
   * Where inbound messages go: with it the same app also serves `POST /inbound/{token}`, where
   * Infobip forwards inbound SMS and Viber messages.
   */
  inbound?: InboundSink | undefined;
  /**
   * The tokens `/inbound/{token}` accepts (several, so one can be rotated), each at least 32
   * URL-safe characters (a shorter one throws); none: every inbound request is 404.
   */
  inboundTokens?: readonly string[] | undefined;
}

/** The route label of a callback: its kind, never the leg's token. */
const route = (kind: string) => `/providers/infobip/{leg}/${kind}`;

function resultsOf(text: string): unknown[] | null {
  try {
    const body = JSON.parse(text) as { results?: unknown };
    return Array.isArray(body.results) ? body.results : null;
  } catch {
    return null;
  }
}

/**
 * Infobip's delivery and seen reports, mounted at `/providers/infobip`:
 * `POST /{legId}.{token}/delivery` and `/seen`. Infobip does not sign these, so the URL of each
 * leg carries a token only Tidings can make; a wrong or missing one answers 404 and changes
 * nothing (and is never logged). A body's reports apply one by one, and only those about the
 * leg the URL names (others are ignored and logged). Answers 200 with an empty body once stored.
 * With `inbound`, the same app serves `POST /inbound/{token}`, where Infobip forwards inbound
 * SMS and Viber messages (see `handleInfobipInbound`).
 */
export function infobipCallbacks(options: InfobipCallbackOptions): CallbackApp {
  const key = callbackKey(options.secretKey);
  const { logger } = options;
  const inboundTokens = inboundTokenDigests(options.inboundTokens ?? []);
  return callbackApp("infobip", logger, async (request) => {
    const inboundPath = /^\/inbound\/([^/?]*)(?:\?.*)?$/.exec(request.url);
    if (inboundPath !== null && options.inbound !== undefined) {
      return handleInfobipInbound(request, inboundPath[1] ?? "", {
        tokens: inboundTokens,
        sink: options.inbound,
        logger,
      });
    }
    const [, segment = "", kind = "", ...rest] = request.url.split("?", 1)[0]!.split("/");
    const leg = splitLegSegment(segment);
    if (leg === null || rest.length > 0 || (kind !== "delivery" && kind !== "seen")) {
      return emptyAnswer(404, "/providers/infobip");
    }
    if (!checkLegToken(key, leg.legId, leg.token).ok) return emptyAnswer(404, "/providers/infobip");
    if (request.method !== "POST") return emptyAnswer(405, route(kind), { allow: "POST" });
    const { messageId, channel } = parseLegId(leg.legId);
    const results = resultsOf(bodyText(request.body));
    if (results === null || !isUuidV7(messageId)) {
      logger.warn("infobip callback without reports", { route: route(kind) });
      return emptyAnswer(400, route(kind));
    }
    for (const result of results) {
      // Anything but an object is no report: skipped, so the rest still apply and the body is
      // answered 200 rather than retried for ever.
      if (typeof result !== "object" || result === null || Array.isArray(result)) continue;
      const report = result as InfobipDeliveryReport & InfobipSeenReport;
      if (report.messageId !== leg.legId) {
        logger.warn("infobip report for another leg ignored", { route: route(kind), messageId });
        continue;
      }
      const status: ProviderReport | null = kind === "seen" ? "seen" : reportOf(report);
      const price =
        typeof report.price === "object" && report.price !== null
          ? { amount: report.price.pricePerMessage, currency: report.price.currency }
          : undefined;
      if (status === null) {
        // An intermediate report changes nothing, but what it says the message cost is kept.
        if (price !== undefined) {
          await recordUpstreamPrice(options.deps, {
            messageId,
            channel,
            provider: "infobip",
            providerMessageId: leg.legId,
            price,
          });
        }
        continue;
      }
      const providerCode = kind === "seen" ? null : providerCodeOf(report);
      const description = kind === "seen" ? undefined : descriptionOf(report);
      await recordCallbackReport(options.deps, logger, {
        messageId,
        channel,
        provider: "infobip",
        providerMessageId: leg.legId,
        // The sender the leg went out from (a delivery report's `sender`).
        sentFrom: typeof report.sender === "string" ? report.sender : null,
        status,
        providerCode,
        ...(description === undefined ? {} : { description }),
        ...(price === undefined ? {} : { price }),
      });
    }
    return emptyAnswer(200, route(kind));
  });
}
