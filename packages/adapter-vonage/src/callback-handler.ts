import {
  bodyText,
  type CallbackApp,
  type CallbackLogger,
  type CallbackRoute,
  type Clock,
  type Deps,
  emptyAnswer,
  headerOf,
  type InboundSink,
  isJsonObject,
  isUuidV7,
  postRoutes,
  recordCallbackReport,
  recordUpstreamPrice,
} from "@tidings/core";
import { handleVonageInbound } from "./inbound-handler.js";
import { parseClientRef } from "./legs.js";
import { providerCodeOf, reportOf, UNDELIVERABLE_DESCRIPTION } from "./status-map.js";
import { verifyVonageWebhook } from "./webhook-signature.js";
import type { VonageStatus } from "./wire.js";

export interface VonageCallbackOptions {
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox" | "telemetry">;
  /** The account's signature secret: the HS256 key of signed webhooks. */
  signatureSecret: string;
  /** The account's API key, when known: the `api_key` claim must equal it. */
  apiKey?: string | undefined;
  logger: CallbackLogger;
  /** The clock `iat` is checked against (default: `deps.clock`). */
  clock?: Clock | undefined;
  /**
   * Where inbound messages go: with it the same app also serves `POST /inbound`, the
   * application's inbound URL, signed as the status webhooks are.
   */
  inbound?: InboundSink | undefined;
}

/**
 * Vonage's status webhooks, mounted at `/providers/vonage`: `POST /status`, JSON, signed with an
 * HS256 JWT over the body's hash. One without any `Authorization` (Vonage sometimes sends one
 * unsigned) answers 503 with `Retry-After`, so Vonage sends it again, signed; a bad signature,
 * a stale one or one over another body answers 403. Nothing changes either way. A verified
 * report answers 200 with an empty body once stored. With `inbound`, the same app serves
 * `POST /inbound`, the application's inbound URL, signed the same way (see `handleVonageInbound`).
 */
export function vonageCallbacks(options: VonageCallbackOptions): CallbackApp {
  const { logger } = options;
  const clock = options.clock ?? options.deps.clock;
  const sink = options.inbound;
  const inbound: CallbackRoute | undefined =
    sink &&
    ((request) => handleVonageInbound(request, { ...options, nowMs: clock.now(), sink, logger }));
  const statusRoute: CallbackRoute = async (request, route) => {
    const verdict = await verifyVonageWebhook(
      headerOf(request, "authorization"),
      request.body ?? "",
      {
        signatureSecret: options.signatureSecret,
        apiKey: options.apiKey,
        nowMs: clock.now(),
      },
    );
    if (!verdict.ok) {
      logger.warn("vonage webhook refused", { route: route, reason: verdict.reason });
      return verdict.reason === "unsigned"
        ? emptyAnswer(503, route, { "retry-after": "5" })
        : emptyAnswer(403, route);
    }
    let status: VonageStatus | null;
    try {
      status = statusOf(JSON.parse(bodyText(request.body)));
    } catch {
      status = null;
    }
    if (status === null) return emptyAnswer(400, route);
    const report = reportOf(status);
    const { messageId, channel } = parseClientRef(status.client_ref ?? "");
    // `usage` may ride on a status that changes nothing (`submitted`): its price is kept all the same.
    const price =
      status.usage === undefined
        ? undefined
        : { amount: status.usage.price, currency: status.usage.currency };
    if (report === null) {
      if (price !== undefined && isUuidV7(messageId)) {
        await recordUpstreamPrice(options.deps, {
          messageId,
          channel,
          provider: "vonage",
          providerMessageId: status.message_uuid ?? null,
          price,
        });
      }
      return emptyAnswer(200, route);
    }
    const providerCode = providerCodeOf(status.error);
    const description =
      status.status === "undeliverable"
        ? UNDELIVERABLE_DESCRIPTION
        : (status.error?.detail ?? textOf(status.error?.title));
    await recordCallbackReport(options.deps, logger, {
      messageId,
      channel,
      provider: "vonage",
      providerMessageId: status.message_uuid ?? null,
      // The sender the leg went out from, as Vonage spells it (no `+`).
      sentFrom: typeof status.from === "string" ? status.from : null,
      status: report,
      providerCode,
      ...(description === undefined ? {} : { description }),
      ...(price === undefined ? {} : { price }),
    });
    return emptyAnswer(200, route);
  };
  return postRoutes("vonage", logger, { "/status": statusRoute, "/inbound": inbound });
}

const textOf = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;

/**
 * A status webhook's body as the fields Tidings reads, each a string or absent: a signed body
 * of another shape is Vonage's to fix, not a reason to fail (and be retried) for ever. `null`
 * when the body is not a JSON object at all.
 */
function statusOf(body: unknown): VonageStatus | null {
  if (!isJsonObject(body)) return null;
  const error = isJsonObject(body.error)
    ? {
        type: textOf(body.error.type),
        title: typeof body.error.title === "number" ? body.error.title : textOf(body.error.title),
        detail: textOf(body.error.detail),
      }
    : undefined;
  return {
    message_uuid: textOf(body.message_uuid),
    status: textOf(body.status),
    client_ref: textOf(body.client_ref),
    error,
    usage: isJsonObject(body.usage)
      ? { price: body.usage.price, currency: body.usage.currency }
      : undefined,
  };
}
