import { createServer } from "@tidings/adapter-http";
import type { ServerConfig } from "../config.js";
import type { Logger } from "../logger.js";
import type { Runtime } from "../runtime/runtime.js";
import { ConfigError } from "../secret-key.js";
import { isLoopback } from "./loopback.js";
import { METRICS_PATH, metricsOnlyApp } from "./metrics-endpoint.js";

/**
 * Warns when `/metrics` is open to the network: served on an address other than loopback
 * without `TIDINGS_METRICS_TOKEN`. The series hold no personal data, but they show traffic.
 */
export function warnIfMetricsExposed(logger: Logger, host: string, token: string | null): void {
  if (token !== null || isLoopback(host)) return;
  logger.warn("metrics served without a token", {
    host,
    path: METRICS_PATH,
    hint: "Set TIDINGS_METRICS_TOKEN to require Authorization: Bearer <token> on scrapes, or TIDINGS_METRICS=0 to turn them off.",
  });
}

/**
 * `worker`'s own metrics server: `/metrics` alone on `TIDINGS_METRICS_PORT` (0 picks a free
 * port) at `HOST`, logged with its address; `null` when metrics are off or no port is set.
 */
export async function listenMetrics(
  runtime: Runtime,
  logger: Logger,
  config: Pick<ServerConfig, "host" | "metricsPort" | "metricsToken">,
): Promise<{ close(): Promise<void> } | null> {
  const { metrics } = runtime;
  if (!metrics || config.metricsPort === null) return null;
  const server = createServer(metricsOnlyApp(metrics, { token: config.metricsToken }));
  let where: { port: number; host: string; url: string };
  try {
    where = await server.listen(config.metricsPort, config.host);
  } catch (error) {
    const cause = error instanceof Error ? ` (${error.message})` : "";
    throw new ConfigError(
      `TIDINGS_METRICS_PORT ${config.metricsPort} cannot be listened on at ${config.host}${cause}.`,
    );
  }
  logger.info("metrics listening", {
    port: where.port,
    host: where.host,
    url: `${where.url}${METRICS_PATH}`,
  });
  warnIfMetricsExposed(logger, where.host, config.metricsToken);
  return { close: () => server.close() };
}
