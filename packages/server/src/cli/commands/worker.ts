import { ok } from "neverthrow";
import { startBackgroundWork } from "../../runtime/background.js";
import type { Command } from "../command.js";
import { shutdownRequested } from "./serve.js";

/**
 * `worker`: the webhook delivery engine and the expiry sweep without the HTTP API, for scaling
 * out on PostgreSQL (deliveries are claimed with leases, so workers never double-send).
 */
export const workerCommand: Command = {
  name: ["worker"],
  summary: "Run the webhook delivery engine and the expiry sweep alone.",
  usage: "",
  options: {},
  logsToStdout: true,
  async run(context) {
    const { config, logger, runtime } = context;
    const background = await startBackgroundWork(runtime, logger, {
      leaseMs: config.webhookLeaseMs,
    });
    logger.info("worker started", {
      database: config.database.kind,
      listening_for_notifications: runtime.listenForDeliveries !== undefined,
      engine: background.owner,
    });
    const signal = await shutdownRequested(context);
    logger.info("shutting down", { signal });
    await background.stop();
    logger.info("stopped", { signal });
    return ok({ exitCode: 0 });
  },
};
