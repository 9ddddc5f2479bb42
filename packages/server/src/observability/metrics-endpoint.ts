import { createHash, timingSafeEqual } from "node:crypto";
import type { HttpApp, HttpRequest, HttpResponse } from "@tidings/adapter-http";
import type { Metrics } from "./metrics.js";

/** Where the metrics are served, outside `/v1`. */
export const METRICS_PATH = "/metrics";

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
function authorized(request: HttpRequest, token: string): boolean {
  const header = Object.entries(request.headers).find(
    ([name]) => name.toLowerCase() === "authorization",
  )?.[1];
  const value = Array.isArray(header) ? header[0] : header;
  const presented = /^Bearer (.+)$/i.exec(value ?? "")?.[1];
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}

const plain = (
  status: number,
  body: string,
  headers: Record<string, string> = {},
): HttpResponse => ({
  status,
  headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...headers },
  body,
  route: METRICS_PATH,
});

/**
 * The app with `GET /metrics` in front: the Prometheus text exposition of `metrics`. With a
 * `token`, a scrape must send `Authorization: Bearer <token>` (401 otherwise); every other
 * request goes to `app`.
 */
export function withMetricsEndpoint(
  app: HttpApp,
  metrics: Metrics,
  options: { token: string | null },
): HttpApp {
  return {
    ...app,
    async handle(request) {
      const path = request.url.split("?", 1)[0];
      if (path !== METRICS_PATH) return app.handle(request);
      const method = request.method.toUpperCase();
      if (method !== "GET" && method !== "HEAD") {
        return plain(405, "Method not allowed.\n", { allow: "GET, HEAD" });
      }
      if (options.token !== null && !authorized(request, options.token)) {
        return plain(401, "A bearer token is required.\n", {
          "www-authenticate": 'Bearer realm="metrics"',
        });
      }
      const { contentType, body } = await metrics.render();
      return plain(200, method === "HEAD" ? "" : body, { "content-type": contentType });
    },
  };
}

/** An app that serves only `/metrics` (404 for anything else), for `tidings worker`. */
export function metricsOnlyApp(metrics: Metrics, options: { token: string | null }): HttpApp {
  const notFound = (): HttpResponse => ({ ...plain(404, "Not found.\n"), route: undefined });
  return withMetricsEndpoint(
    {
      maxBodyBytes: 0,
      handle: async () => notFound(),
      refuse: () => notFound(),
    },
    metrics,
    options,
  );
}
