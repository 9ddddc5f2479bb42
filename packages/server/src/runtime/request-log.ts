import type { HttpApp } from "@tidings/adapter-http";
import type { Logger } from "../logger.js";

/**
 * The app, logging one line per request: request id, method, path (without the query, which
 * may hold phone numbers or emails), status and duration, and the trace id when tracing is on.
 * A provider callback's path is logged as its route: Infobip's carry a secret token.
 */
export function withRequestLog(app: HttpApp, logger: Logger): HttpApp {
  return {
    ...app,
    async handle(request) {
      const started = performance.now();
      const response = await app.handle(request);
      const path = request.url.startsWith("/providers/")
        ? (response.route ?? "/providers/*")
        : (request.url.split("?", 1)[0] ?? request.url);
      logger.info("request", {
        request_id: response.headers["x-request-id"] ?? null,
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
