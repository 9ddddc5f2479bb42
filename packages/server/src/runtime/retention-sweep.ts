import { performance } from "node:perf_hooks";
import { createRetentionSweeper, type Deps } from "@tidings/core";
import { formatDuration } from "../duration.js";
import { type Logger, logRoundFailure } from "../logger.js";
import { everyInterval } from "./rounds.js";

/** A wall-clock jump this large (ms) is logged; smaller drift is timer noise. */
const JUMP_WORTH_LOGGING_MS = 5_000;

/** A running retention sweep. */
export interface RetentionSweep {
  /** Stops the timer; a round in progress stops after its current batch. */
  stop(): Promise<void>;
}

/** Thrown between two batches once the sweep is stopped, to end the round early. */
class Stopped extends Error {}

/**
 * How often the sweep runs: a quarter of the shortest thing it keeps, so nothing outstays it
 * by much, between once a second and every 10 s.
 */
const sweepIntervalMs = (config: Deps["config"]): number =>
  Math.min(10_000, Math.max(1_000, Math.min(config.retentionMs, config.idempotencyTtlMs) / 4));

/** Start-up warnings about settings that keep data otherwise than they seem to say. */
function retentionWarnings(config: Deps["config"]): string[] {
  const warnings: string[] = [];
  if (config.retentionMs < config.webhookRetryWindowMs) {
    warnings.push(
      `TIDINGS_RETENTION (${formatDuration(config.retentionMs)}) is shorter than the webhook retry window (${formatDuration(config.webhookRetryWindowMs)}): a message whose delivery is still being retried is kept until the delivery ends.`,
    );
  }
  if (config.idempotencyTtlMs < config.idempotencyLockMs) {
    warnings.push(
      `TIDINGS_IDEMPOTENCY_TTL (${formatDuration(config.idempotencyTtlMs)}) is shorter than the ${formatDuration(config.idempotencyLockMs)} a request holds its key: a retry after the key expired runs as a new request even while the first is still running.`,
    );
  }
  return warnings;
}

/**
 * Runs the core's retention sweep every `sweepIntervalMs`, one round at a time, yielding to
 * the event loop between batches so requests and deliveries go on meanwhile. What a round
 * deleted is logged; a failure is logged and the next tick tries again.
 */
export function startRetentionSweep(
  deps: Pick<Deps, "storage" | "clock" | "config" | "ids" | "secretBox">,
  logger: Logger,
  intervalMs = sweepIntervalMs(deps.config),
): RetentionSweep {
  for (const warning of retentionWarnings(deps.config)) logger.warn(warning);
  let stopped = false;
  const sweeper = createRetentionSweeper(deps, {
    // Unbounded per round: a yield between batches keeps it from holding anything up, and a
    // round that stops early would leave a backlog under a steady load.
    maxBatches: Number.POSITIVE_INFINITY,
    monotonic: () => performance.now(),
    between: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      if (stopped) throw new Stopped();
    },
  });
  const round = async (): Promise<void> => {
    try {
      const done = await sweeper.round();
      if (Math.abs(done.clockJumpMs) >= JUMP_WORTH_LOGGING_MS) {
        logger.warn("wall clock jumped; retention deletes by the time that really passed", {
          jumpMs: done.clockJumpMs,
        });
      }
      const { clockJumpMs: _jump, ...deleted } = done;
      if (Object.values(deleted).some((n) => n > 0)) logger.info("retention swept", deleted);
    } catch (error) {
      if (!(error instanceof Stopped)) logRoundFailure(logger, "retention sweep failed", error);
    }
  };
  const rounds = everyInterval(round, intervalMs);
  return {
    async stop() {
      stopped = true;
      await rounds.stop();
    },
  };
}
