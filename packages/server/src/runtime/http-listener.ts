import {
  createHttpApp,
  createLinkApp,
  createServer,
  LINK_PATH,
  trustedProxies,
} from "@tidings/adapter-http";
import { createConsole } from "@tidings/console";
import type { ServerConfig } from "../config.js";
import type { Logger } from "../logger.js";
import { withMetricsEndpoint } from "../observability/metrics-endpoint.js";
import { withRequestMetrics } from "../observability/request-metrics.js";
import { withFrontPage } from "./front-page.js";
import { type Mount, withMounts } from "./mount.js";
import { withRequestLog } from "./request-log.js";
import type { Runtime } from "./runtime.js";

/** The HTTP API on a socket. */
export interface HttpListener {
  port: number;
  host: string;
  url: string;
  /** Stops accepting, lets the requests in flight finish, closes idle keep-alive connections. */
  close(): Promise<void>;
}

/** Where `serve` mounts the web console. */
export const CONSOLE_PATH = "/console";

/**
 * Serves the REST API (adapter-http), the real providers' callbacks under `/providers/{name}`,
 * tracked short links under `/l`, the web console under `/console` unless turned off, and
 * the Prometheus metrics at `/metrics` when the runtime has them, over node:http on
 * `host:port` (port 0 picks a free one). Every request is counted and logged, scrapes included.
 */
export async function listenHttp(
  runtime: Runtime,
  logger: Logger,
  host: string,
  port: number,
  config: Pick<
    ServerConfig,
    "console" | "publicUrl" | "metricsToken" | "dev" | "trustedProxies" | "storageTimeoutMs"
  >,
): Promise<HttpListener> {
  const mounts: Mount[] = config.console
    ? [
        {
          prefix: CONSOLE_PATH,
          app: createConsole(runtime.deps, {
            basePath: CONSOLE_PATH,
            publicUrl: config.publicUrl ?? undefined,
            logger,
            devMode: config.dev,
          }),
        },
      ]
    : [];
  mounts.push(...runtime.providerCallbacks);
  mounts.push({
    prefix: LINK_PATH,
    app: createLinkApp(runtime.deps, {
      logger,
      trustedProxies: trustedProxies(config.trustedProxies),
    }),
  });
  const { metrics } = runtime;
  const served = withFrontPage(
    withMounts(
      createHttpApp(runtime.deps, {
        logger,
        sandbox: runtime.sandbox,
        dev: config.dev,
        storageTimeoutMs: config.storageTimeoutMs,
        inboundSink: runtime.inboundSink,
      }),
      mounts,
    ),
    { console: config.console ? CONSOLE_PATH : null },
  );
  const app = withRequestLog(
    metrics
      ? withRequestMetrics(
          withMetricsEndpoint(served, metrics, { token: config.metricsToken }),
          metrics,
        )
      : served,
    logger,
    runtime.deps.ids,
  );
  const server = createServer(app);
  const where = await server.listen(port, host);
  return { ...where, close: () => server.close() };
}
