import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { createDeliveryEngine, type DeliveryLogEntry } from "@tidings/core";
import type { Logger } from "../logger.js";
import { countWebhookAttempt } from "../observability/webhook-attempt-metrics.js";
import { startExpirySweep } from "./expiry-sweep.js";
import { startFallbackSweep } from "./fallback-sweep.js";
import { startMaintenance } from "./maintenance.js";
import { startReleaseSweep } from "./release-sweep.js";
import { startRetentionSweep } from "./retention-sweep.js";
import type { Runtime } from "./runtime.js";

/**
 * Every webhook attempt is logged: status, duration, error (docs/decisions.md "Retries"); so is
 * each circuit that opens or closes and each subscription turned off for failing.
 */
function logDelivery(logger: Logger, entry: DeliveryLogEntry, storageDown: () => boolean): void {
  switch (entry.event) {
    case "attempt": {
      const { event: _event, ...fields } = entry;
      const level = entry.outcome === "delivered" ? "info" : "warn";
      logger[level]("webhook attempt", fields);
      return;
    }
    case "circuit":
      logger[entry.state === "opened" ? "warn" : "info"](
        entry.state === "opened"
          ? "webhook destination not answering: circuit opened"
          : "webhook destination answers again: circuit closed",
        { destination: entry.destination },
      );
      return;
    case "disabled": {
      const { event: _event, ...fields } = entry;
      logger.warn("webhook subscription disabled: its deliveries kept failing", fields);
      return;
    }
    case "error":
      // While storage is away the engine's rounds fail and are tried again; the outage itself
      // is logged once, so its rounds are only debug lines.
      logger[storageDown() ? "debug" : "error"]("webhook engine error", {
        stage: entry.stage,
        deliveryId: entry.deliveryId,
        error: entry.error,
      });
  }
}

/** The work that runs beside (or instead of) the HTTP API. */
export interface BackgroundWork {
  /** The engine's lease owner as stored on the deliveries it holds: host, pid and a nonce. */
  owner: string;
  /** Stops claiming, waits for the attempts and the sweep in flight, stops listening. */
  stop(): Promise<void>;
}

/**
 * Starts the webhook delivery engine, the expiry sweep, the SMS fallback sweep, the release of
 * scheduled messages, the retention
 * sweep and the storage's housekeeping. The engine wakes when this process queues a delivery and, on PostgreSQL, when
 * another one does (LISTEN/NOTIFY); it also polls.
 */
export async function startBackgroundWork(
  runtime: Runtime,
  logger: Logger,
  options: { leaseMs: number },
): Promise<BackgroundWork> {
  // The owner names the process, so a lease left by a crashed one can be traced to it.
  const owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  const storageDown = () => runtime.deps.storage.health?.isAvailable() === false;
  const engine = createDeliveryEngine(runtime.deps, {
    owner,
    leaseMs: options.leaseMs,
    logger: (entry) => {
      logDelivery(logger, entry, storageDown);
      if (runtime.metrics) countWebhookAttempt(runtime.metrics, entry);
    },
  });
  runtime.metrics?.observeOpenCircuits(() => engine.openCircuits());
  runtime.onDeliveriesQueued(() => engine.wake());
  engine.start();
  for (const warning of runtime.storageWarnings) logger.warn(warning);
  const sweep = startExpirySweep(runtime.deps, logger);
  const fallbacks = startFallbackSweep(runtime.deps, logger);
  const releases = startReleaseSweep(runtime.deps, logger, {
    onRound: (round) => {
      const { metrics } = runtime;
      if (!metrics) return;
      metrics.releases.inc({ outcome: "released" }, round.released);
      metrics.releases.inc({ outcome: "refused" }, round.refused);
      metrics.releases.inc({ outcome: "abandoned" }, round.abandoned);
      for (const lag of round.lagsMs) metrics.releaseLag.observe(lag / 1000);
    },
  });
  const maintenance = startMaintenance(runtime.maintain, logger);
  const retention = startRetentionSweep(runtime.deps, logger);
  let unlisten: (() => Promise<void>) | null = null;
  if (runtime.listenForDeliveries) {
    unlisten = await runtime.listenForDeliveries(() => engine.wake());
  }
  return {
    owner,
    async stop() {
      await unlisten?.();
      await sweep.stop();
      await fallbacks.stop();
      await releases.stop();
      await maintenance.stop();
      await retention.stop();
      await engine.stop();
    },
  };
}
