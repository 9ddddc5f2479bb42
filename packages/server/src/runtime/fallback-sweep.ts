import { type Deps, runDueFallbacks } from "@tidings/core";
import type { Logger } from "../logger.js";

const BATCH = 100;

/** A running fallback sweep. */
export interface FallbackSweep {
  /** Stops the timer and resolves once the sweep in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Sends the SMS of each fallback after the fact that a Viber report made due, every
 * `intervalMs` (so within about a second of the report), again at once while full batches
 * come back. The jobs are rows, so one left by a crash is taken up after a restart, or by
 * another process once its lease ends. Failures are logged and the next tick tries again.
 */
export function startFallbackSweep(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "provider" | "secretBox" | "calendar">,
  logger: Logger,
  intervalMs = 500,
): FallbackSweep {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const sweep = async (): Promise<void> => {
    try {
      let ran = BATCH;
      while (!stopped && ran === BATCH) {
        ran = await runDueFallbacks(deps, { limit: BATCH });
        if (ran > 0) logger.info("sms fallbacks run", { count: ran });
      }
    } catch (error) {
      logger.error("sms fallback sweep failed", { error });
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
