import type { Logger } from "../logger.js";

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
  let running: Promise<void> | null = null;
  const round = async (): Promise<void> => {
    try {
      const done = await maintain();
      if (done.length > 0) logger.info("storage maintained", { done });
    } catch (error) {
      logger.error("storage maintenance failed", { error });
    }
  };
  // A tick that finds the last round still running is skipped, so rounds never pile up.
  const timer = setInterval(() => {
    running ??= round().finally(() => {
      running = null;
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
