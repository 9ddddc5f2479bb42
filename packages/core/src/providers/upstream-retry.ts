import type { Clock } from "../ports.js";

/**
 * What one try at an upstream came to: a final value, or a value that may be bettered by trying
 * again because the upstream did not process the request (a 429, a connection refused before
 * any byte was sent), with its `Retry-After` when it gave one.
 */
export type UpstreamTry<T> =
  | { retry: false; value: T }
  | { retry: true; value: T; retryAfterMs: number | null };

export interface UpstreamRetryOptions {
  /** The deadline of the whole call, every try and wait included, in ms. */
  deadlineMs: number;
  clock: Clock;
  /** Tries at most (default 3). */
  maxTries?: number | undefined;
  /** The first backoff's ceiling (default 100 ms), doubling per try up to `capDelayMs`. */
  baseDelayMs?: number | undefined;
  /** The backoff's largest ceiling (default 3000 ms). */
  capDelayMs?: number | undefined;
  /** A number in [0, 1) (default `Math.random`): full jitter. */
  random?: (() => number) | undefined;
  /** Waits `ms` (default a timer); tests pass one that moves their clock. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

const timerSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref?.();
  });

/**
 * The wait before try `attempt + 1` (attempt counts from 1): full-jitter exponential backoff,
 * never sooner than the upstream's `Retry-After`.
 */
export function backoffMs(
  attempt: number,
  retryAfter: number | null,
  options: Pick<UpstreamRetryOptions, "baseDelayMs" | "capDelayMs" | "random">,
): number {
  const base = options.baseDelayMs ?? 100;
  const cap = options.capDelayMs ?? 3000;
  const ceiling = Math.min(cap, base * 2 ** (attempt - 1));
  const jitter = Math.floor((options.random ?? Math.random)() * ceiling);
  return Math.max(jitter, retryAfter ?? 0);
}

/**
 * Calls `attempt` until it gives a final value, it was tried `maxTries` times, or the next wait
 * would end past the deadline; then answers the last value. Each try gets the signal of the
 * whole call's deadline and the ms left until it, for its own request timeout. The same shape
 * as twilio-node's `autoRetry`, plus `Retry-After` and one deadline over everything.
 */
export async function withUpstreamRetries<T>(
  attempt: (signal: AbortSignal, remainingMs: number, tryNumber: number) => Promise<UpstreamTry<T>>,
  options: UpstreamRetryOptions,
): Promise<T> {
  const maxTries = options.maxTries ?? 3;
  const sleep = options.sleep ?? timerSleep;
  const deadline = options.clock.now() + options.deadlineMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.deadlineMs);
  timer.unref?.();
  try {
    for (let tryNumber = 1; ; tryNumber += 1) {
      const remaining = Math.max(0, deadline - options.clock.now());
      const outcome = await attempt(controller.signal, remaining, tryNumber);
      if (!outcome.retry || tryNumber >= maxTries) return outcome.value;
      const wait = backoffMs(tryNumber, outcome.retryAfterMs, options);
      // A wait that ends at or past the deadline leaves no time for the next try.
      if (options.clock.now() + wait >= deadline) return outcome.value;
      await sleep(wait);
    }
  } finally {
    clearTimeout(timer);
  }
}
