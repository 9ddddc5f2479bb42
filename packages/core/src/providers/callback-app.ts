// The framework-neutral shape of a provider's callback endpoint: the same request and answer
// as the HTTP API's `handle`, so a server mounts it like the API, with no framework in core.

import type { InboundOutcome, InboundReport, InboundSink } from "../ports.js";
import type { ProviderLogger } from "./provider-logger.js";

/** A callback request: no sockets, no streams; `url` is path and query below the mount. */
export interface CallbackRequest {
  method: string;
  url: string;
  /** Header names in any case; node:http's `IncomingMessage.headers` fits as is. */
  headers: Record<string, string | string[] | undefined>;
  body?: Uint8Array | string | undefined;
}

/** The answer: lowercase header names, a text body (empty for a stored report). */
export interface CallbackResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** A bounded label of the path for the host's metrics and logs (never a token). Never sent. */
  route?: string | undefined;
}

/** Why a listener refused a request before reading its body. */
export type CallbackRefusal = "payload_too_large" | "route_not_found" | "request_aborted";

/** One provider's callbacks as a function from request to answer (`HttpApp`'s shape). */
export interface CallbackApp {
  /** Answers one request; never rejects (a failure to store is a 503, so the provider retries). */
  handle(request: CallbackRequest): Promise<CallbackResponse>;
  refuse(request: Omit<CallbackRequest, "body">, reason: CallbackRefusal): CallbackResponse;
  readonly maxBodyBytes: number;
  /** Stops what the routes started in the background (a provider's price reads); optional. */
  close?(): void;
}

/** What a callback endpoint logs: the one provider logger. */
export type CallbackLogger = ProviderLogger;

/** 1 MiB: the largest callback body accepted. */
export const MAX_CALLBACK_BYTES = 1024 * 1024;

/** An answer with an empty body. */
export const emptyAnswer = (
  status: number,
  route: string,
  headers: Record<string, string> = {},
): CallbackResponse => ({ status, headers, body: "", route });

/** A header's single value, whatever case its name arrived in; `null` when absent. */
export function headerOf(request: Pick<CallbackRequest, "headers">, name: string): string | null {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(request.headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? (value[0] ?? null) : value;
  }
  return null;
}

/** The body as UTF-8 text. */
export const bodyText = (body: CallbackRequest["body"]): string =>
  body === undefined ? "" : typeof body === "string" ? body : new TextDecoder().decode(body);

const bodyBytes = (body: CallbackRequest["body"]): number =>
  body === undefined
    ? 0
    : typeof body === "string"
      ? new TextEncoder().encode(body).byteLength
      : body.byteLength;

const REFUSALS: Record<CallbackRefusal, number> = {
  payload_too_large: 413,
  route_not_found: 404,
  request_aborted: 400,
};

/**
 * A callback app around `handle`: bodies over 1 MiB are refused (413), and a `handle` that
 * throws (storage unavailable, a bug) answers 503 with `Retry-After`, logged, so the provider
 * tries again later instead of dropping the report.
 */
export function callbackApp(
  provider: string,
  logger: CallbackLogger,
  handle: (request: CallbackRequest) => Promise<CallbackResponse>,
): CallbackApp {
  return {
    maxBodyBytes: MAX_CALLBACK_BYTES,
    async handle(request) {
      if (bodyBytes(request.body) > MAX_CALLBACK_BYTES) {
        return emptyAnswer(413, `/providers/${provider}`);
      }
      try {
        return await handle(request);
      } catch (error) {
        logger.error("provider callback not stored", { provider, error });
        return emptyAnswer(503, `/providers/${provider}`, { "retry-after": "5" });
      }
    },
    refuse(_request, reason) {
      return emptyAnswer(REFUSALS[reason], `/providers/${provider}`);
    },
  };
}

/** One POST route of a provider: its request, its route label and the URL's query. */
export type CallbackRoute = (
  request: CallbackRequest,
  route: string,
  query: URLSearchParams,
) => Promise<CallbackResponse>;

/**
 * A callback app of POST routes by path below `/providers/{provider}` (e.g. `/status`); a route
 * left `undefined` is not served. Another path answers 404, another method 405 with `Allow`.
 */
export function postRoutes(
  provider: string,
  logger: CallbackLogger,
  routes: Readonly<Record<string, CallbackRoute | undefined>>,
): CallbackApp {
  return callbackApp(provider, logger, async (request) => {
    const at = request.url.indexOf("?");
    const path = at < 0 ? request.url : request.url.slice(0, at);
    const serve = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (serve === undefined) return emptyAnswer(404, `/providers/${provider}`);
    const route = `/providers/${provider}${path}`;
    if (request.method !== "POST") return emptyAnswer(405, route, { allow: "POST" });
    return serve(request, route, new URLSearchParams(at < 0 ? "" : request.url.slice(at + 1)));
  });
}

/**
 * Hands a verified inbound message to `sink`; one it did not store (no organization owns the
 * number it was sent to, or the sender is no phone number) is logged at info.
 */
export async function receiveInbound(
  sink: InboundSink,
  logger: CallbackLogger,
  report: InboundReport,
): Promise<InboundOutcome> {
  const outcome = await sink.receive(report);
  if (outcome === "no_owner" || outcome === "bad_sender") {
    const { provider, channel } = report;
    logger.info(`${provider} inbound message not stored`, { provider, channel, outcome });
  }
  return outcome;
}
