import { type Deps, expireMessages } from "@tidings/core";
import { type Logger, logRoundFailure } from "../logger.js";

const BATCH = 100;

/** A running expiry sweep. */
export interface ExpirySweep {
  /** Stops the timer and resolves once the sweep in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Expires the messages whose TTL has passed, every `intervalMs`, sweeping again at once while
 * full batches come back. Failures are logged and the next tick tries again.
 */
export function startExpirySweep(
  deps: Pick<Deps, "storage" | "ids" | "clock">,
  logger: Logger,
  intervalMs = 1_000,
): ExpirySweep {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const sweep = async (): Promise<void> => {
    try {
      let expired = BATCH;
      while (!stopped && expired === BATCH) {
        expired = await expireMessages(deps, BATCH);
        if (expired > 0) logger.info("messages expired", { count: expired });
      }
    } catch (error) {
      logRoundFailure(logger, "expiry sweep failed", error);
    }
  };
  const timer = setInterval(() => {
    running = running.then(sweep);
  }, intervalMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
