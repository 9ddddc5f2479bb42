import { type Logger, logRoundFailure } from "../logger.js";
import { everyInterval } from "./rounds.js";

/** Running storage housekeeping. */
export interface Maintenance {
  /** Stops the timer and resolves once a round in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Runs the storage's `maintain` every `intervalMs`, one round at a time; what it did is logged,
 * and a failure is logged and tried again at the next tick. Without `maintain`, does nothing.
 */
export function startMaintenance(
  maintain: (() => Promise<string[]>) | undefined,
  logger: Logger,
  intervalMs = 10_000,
): Maintenance {
  if (maintain === undefined) return { stop: async () => undefined };
  const round = async (): Promise<void> => {
    try {
      const done = await maintain();
      if (done.length > 0) logger.info("storage maintained", { done });
    } catch (error) {
      logRoundFailure(logger, "storage maintenance failed", error);
    }
  };
  return everyInterval(round, intervalMs);
}
