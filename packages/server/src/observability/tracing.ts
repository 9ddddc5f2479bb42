import { parseUrl } from "@tidings/core";
import type { Logger } from "../logger.js";

/** The tracing SDK of this process, started; `stop` exports what is buffered and shuts it down. */
export interface Tracing {
  stop(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/**
 * Starts the OpenTelemetry Node SDK when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces-only
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, and only then: the libraries create their spans
 * through `@opentelemetry/api`, which costs nothing without it. The SDK reads the standard
 * `OTEL_*` variables itself (protocol, headers, sampler, resource attributes); the service is
 * named `tidings` unless `OTEL_SERVICE_NAME` says otherwise. The SDK is loaded only when used.
 */
export async function startTracing(env: Env, logger: Logger): Promise<Tracing | null> {
  const endpoint =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint || env.OTEL_SDK_DISABLED?.trim() === "true") return null;
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || "tidings";
  // No automatic instrumentations: Tidings' own spans name routes and use cases, and patching
  // http, pg or undici would add spans whose attributes may hold URLs with query strings.
  const sdk = new NodeSDK({ serviceName, instrumentations: [] });
  sdk.start();
  // Only where spans go, as scheme, host and path: the endpoint's query could hold a token.
  const where = parseUrl(endpoint);
  logger.info("tracing on", {
    service: serviceName,
    endpoint: where ? `${where.protocol}//${where.host}${where.pathname}` : null,
  });
  return {
    async stop() {
      try {
        await sdk.shutdown();
      } catch (error) {
        logger.warn("tracing shutdown failed", { error });
      }
    },
  };
}
