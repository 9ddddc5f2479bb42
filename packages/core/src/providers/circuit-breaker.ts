import type { Clock } from "../ports.js";

export type CircuitState = "closed" | "open" | "half_open";

/** One provider's circuit: it opens after consecutive unavailable answers, then probes. */
export interface CircuitBreaker {
  /**
   * Whether a request may go now: always while closed; never while open; once the open
   * period is over, one probe at a time (the circuit is half open until it is told how it went).
   */
  admit(): boolean;
  /** How an admitted request went: `unavailable` (unreachable, timed out, 5xx) or `ok`. */
  record(outcome: "ok" | "unavailable"): void;
  state(): CircuitState;
}

export interface CircuitBreakerOptions {
  clock: Clock;
  /** Consecutive unavailable answers that open the circuit (default 5). */
  threshold?: number | undefined;
  /** How long it stays open before a probe, in ms (default 30 000). */
  openMs?: number | undefined;
}

/** A circuit breaker on `clock`; its state lives in this process only. */
export function circuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const threshold = options.threshold ?? 5;
  const openMs = options.openMs ?? 30_000;
  let failures = 0;
  let openedAt: number | null = null;
  let probing = false;

  const state = (): CircuitState => {
    if (openedAt === null) return "closed";
    return options.clock.now() - openedAt < openMs ? "open" : "half_open";
  };

  return {
    state,
    admit() {
      const now = state();
      if (now === "closed") return true;
      if (now === "open" || probing) return false;
      probing = true;
      return true;
    },
    record(outcome) {
      if (outcome === "ok") {
        failures = 0;
        openedAt = null;
        probing = false;
        return;
      }
      failures += 1;
      // A failed probe opens the circuit again at once.
      if (probing || failures >= threshold) {
        openedAt = options.clock.now();
        probing = false;
      }
    },
  };
}
