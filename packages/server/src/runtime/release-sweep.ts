import { type Deps, type ReleaseRound, releaseDueMessages } from "@tidings/core";
import type { Logger } from "../logger.js";

const BATCH = 100;

/** A running release sweep. */
export interface ReleaseSweep {
  /** Stops the timer and resolves once the round in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Releases held messages (a campaign's sending window, a send's `send_at`) whose time has come,
 * every `intervalMs`, so each goes out well within 2 s of its time, and again at once while
 * full batches come back. Every process that runs background work runs it: a message is taken
 * by a compare-and-set, so each is released by one process only. Failures are logged and the
 * next tick tries again.
 */
export function startReleaseSweep(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "provider" | "telemetry" | "secretBox">,
  logger: Logger,
  options: { intervalMs?: number; onRound?: (round: ReleaseRound) => void } = {},
): ReleaseSweep {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const sweep = async (): Promise<void> => {
    try {
      let taken = BATCH;
      while (!stopped && taken === BATCH) {
        const round = await releaseDueMessages(deps, { limit: BATCH });
        taken = round.released + round.refused;
        options.onRound?.(round);
        if (round.released + round.refused + round.abandoned > 0) {
          logger.info("scheduled messages released", {
            released: round.released,
            refused: round.refused,
            abandoned: round.abandoned,
          });
        }
      }
    } catch (error) {
      logger.error("scheduled message release failed", { error });
    }
  };
  const timer = setInterval(() => {
    running = running.then(sweep);
  }, options.intervalMs ?? 250);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
