import { type HttpApp, type HttpResponse, UNMATCHED_ROUTE } from "@tidings/adapter-http";
import type { Metrics } from "./metrics.js";

/** Methods node:http accepts that are worth a label of their own; any other is `other`. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The app, counting every answer in `tidings_http_requests_total` and its duration in
 * `tidings_http_request_duration_seconds`, by method, route template (never the path, which
 * holds ids) and status; and the 429s and idempotent replays among them.
 */
export function withRequestMetrics(app: HttpApp, metrics: Metrics): HttpApp {
  const count = (method: string, response: HttpResponse, seconds: number) => {
    const route = response.route ?? UNMATCHED_ROUTE;
    const labels = {
      method: METHODS.has(method) ? method : "other",
      route,
      status: String(response.status),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, seconds);
    if (response.status === 429) metrics.rateLimited.inc({ route });
    if (response.headers["idempotent-replayed"] === "true")
      metrics.idempotentReplays.inc({ route });
  };
  return {
    maxBodyBytes: app.maxBodyBytes,
    async handle(request) {
      const started = performance.now();
      const response = await app.handle(request);
      count(request.method.toUpperCase(), response, (performance.now() - started) / 1000);
      return response;
    },
    refuse(request, reason) {
      const response = app.refuse(request, reason);
      count(request.method.toUpperCase(), response, 0);
      return response;
    },
  };
}
