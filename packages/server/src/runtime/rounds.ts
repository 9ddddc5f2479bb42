/** Work repeated on a timer. */
export interface Rounds {
  /** Stops the timer and resolves once a round in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `round` every `intervalMs`, one at a time: a tick that finds the last round still
 * running is skipped, so rounds never pile up. The timer does not keep the process alive.
 */
export function everyInterval(round: () => Promise<void>, intervalMs: number): Rounds {
  let running: Promise<void> | null = null;
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
