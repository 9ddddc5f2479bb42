import { ok } from "neverthrow";
import { listenMetrics } from "../../observability/metrics-listener.js";
import { startBackgroundWork } from "../../runtime/background.js";
import type { Command } from "../command.js";
import { shutdownRequested } from "./serve.js";

/**
 * `worker`: the webhook delivery engine and the expiry sweep without the HTTP API, for scaling
 * out on PostgreSQL (deliveries are claimed with leases, so workers never double-send). With
 * `TIDINGS_METRICS_PORT` it serves `/metrics` on that port (0 picks one, logged).
 */
export const workerCommand: Command = {
  name: ["worker"],
  summary: "Run the webhook delivery engine and the expiry and retention sweeps alone.",
  usage: "",
  options: {},
  logsToStdout: true,
  observed: { servesMetrics: (config) => config.metrics && config.metricsPort !== null },
  async run(context) {
    const { config, logger, runtime } = context;
    // Listening for SIGTERM before saying `worker started` (see `serve`).
    const shutdown = shutdownRequested(context);
    const background = await startBackgroundWork(runtime, logger, {
      leaseMs: config.webhookLeaseMs,
    });
    // `serve` logs an outage through its HTTP app; a worker has none, so it says so itself.
    runtime.deps.storage.health?.onChange((change) => {
      if (change.available) {
        logger.info("storage available again", { unavailable_for_ms: change.unavailableForMs });
      } else {
        logger.warn("storage unavailable: retrying each round until it is back", {
          reason: change.error.reason,
          error: change.error.message,
        });
      }
    });
    let metrics: Awaited<ReturnType<typeof listenMetrics>> = null;
    try {
      metrics = await listenMetrics(runtime, logger, config);
    } catch (error) {
      await background.stop();
      throw error;
    }
    logger.info("worker started", {
      database: config.database.kind,
      listening_for_notifications: runtime.listenForDeliveries !== undefined,
      engine: background.owner,
    });
    const signal = await shutdown;
    logger.info("shutting down", { signal });
    await metrics?.close();
    await background.stop();
    logger.info("stopped", { signal });
    return ok({ exitCode: 0 });
  },
};
