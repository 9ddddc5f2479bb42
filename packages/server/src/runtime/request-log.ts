import { type HttpApp, requestIdOf } from "@tidings/adapter-http";
import type { Ids } from "@tidings/core";
import type { Logger } from "../logger.js";

/**
 * The app, logging one line per request: request id, method, path (without the query, which
 * may hold phone numbers or emails), status and duration, and the trace id when tracing is on.
 * A provider callback's path is logged as its route: Infobip's carry a secret token; so is a
 * short link's, whose code leads to a URL that may carry the recipient's own token. An answer
 * that carries no request id (the console's pages, `/metrics`, `/`) gets one here, chosen as
 * the API chooses its own, so every line and every answer has one.
 */
export function withRequestLog(app: HttpApp, logger: Logger, ids: Ids): HttpApp {
  return {
    ...app,
    async handle(request) {
      const started = performance.now();
      const response = await app.handle(request);
      response.headers["x-request-id"] ??= requestIdOf(request.headers, ids);
      const path = request.url.startsWith("/providers/")
        ? (response.route ?? "/providers/*")
        : request.url.startsWith("/l/")
          ? (response.route ?? "/l/*")
          : (request.url.split("?", 1)[0] ?? request.url);
      logger.info("request", {
        request_id: response.headers["x-request-id"],
        method: request.method,
        path,
        status: response.status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        ...(response.traceId === undefined ? {} : { trace_id: response.traceId }),
      });
      return response;
    },
  };
}
