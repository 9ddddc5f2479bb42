import type { TidingsConfig } from "../deps.js";

/** The jitter multiplies the base delay by a factor in [JITTER_MIN, JITTER_MIN + JITTER_SPAN). */
const JITTER_MIN = 0.8;
const JITTER_SPAN = 0.4;

export type RetryScheduleConfig = Pick<
  TidingsConfig,
  "webhookBackoffBaseMs" | "webhookBackoffCapMs" | "webhookRetryWindowMs"
>;

export interface RetryInput {
  /** Attempts made so far, including the one that just failed (>= 1). */
  attempts: number;
  /** When the first attempt was made, in ms. */
  firstAttemptAt: number;
  /** When the failed attempt ended, in ms. */
  now: number;
  /** A 429's `Retry-After`, as a delay in ms. */
  retryAfterMs?: number | undefined;
  /** Uniform in [0, 1); `Math.random` by default. */
  random?: (() => number) | undefined;
}

/**
 * The base delay after `attempts` failed attempts: `base * 2^(attempts - 1)`, at most the cap
 * (30 s, 1 min, 2 min, … 6 h with the defaults). Non-decreasing in `attempts`.
 */
export function baseDelay(attempts: number, config: RetryScheduleConfig): number {
  const exponent = Math.max(0, Math.floor(attempts) - 1);
  // 2 ** exponent reaches Infinity for huge counts; the cap still bounds it.
  return Math.min(config.webhookBackoffCapMs, config.webhookBackoffBaseMs * 2 ** exponent);
}

/**
 * When to try a failed delivery again, or `null` when it is to be marked failed.
 *
 * - The delay is the base delay times a jitter factor in [0.8, 1.2), never above the cap, so it
 *   lies in `[0.8 × base, min(1.2 × base, cap)]`.
 * - A 429's Retry-After is honoured within the schedule's bounds: the delay becomes
 *   `max(delay, retryAfter)`, still never above the cap.
 * - Nothing is scheduled past `firstAttemptAt + window` (72 h). When the next time would land
 *   past it and the window has not ended yet, one final attempt is scheduled exactly at the
 *   window's end; once `now` has reached the window's end, the answer is `null`.
 */
export function nextAttemptAt(input: RetryInput, config: RetryScheduleConfig): number | null {
  const windowEnd = input.firstAttemptAt + config.webhookRetryWindowMs;
  if (input.now >= windowEnd) return null;
  const random = input.random ?? Math.random;
  const base = baseDelay(input.attempts, config);
  const jittered = base * (JITTER_MIN + JITTER_SPAN * unitInterval(random()));
  const honoured = Math.max(jittered, validDelay(input.retryAfterMs));
  const delay = Math.min(config.webhookBackoffCapMs, honoured);
  return Math.min(windowEnd, Math.round(input.now + delay));
}

/** A random draw clamped into [0, 1), so a misbehaving source cannot break the bounds. */
const unitInterval = (value: number): number =>
  Number.isFinite(value) ? Math.min(Math.max(value, 0), 1 - Number.EPSILON) : 0;

const validDelay = (ms: number | undefined): number =>
  ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : 0;

const DELAY_SECONDS = /^\d+$/;
// RFC 9110 HTTP-date: IMF-fixdate, and the obsolete RFC 850 and asctime forms.
const HTTP_DATE = [
  /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/**
 * A `Retry-After` header as a delay in ms from `now`: delay-seconds or an HTTP-date (a date in
 * the past is 0). `undefined` when absent or not in either form.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.some((pattern) => pattern.test(text))) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
