import type { Clock } from "../ports.js";

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to, for tests. */
export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

/** A manual clock starting at `start` (default 2026-01-01T00:00:00.000Z). */
export function manualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let current = start;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

// NaN equals no number, so the first call always writes its own answer.
let lastMs = Number.NaN;
let lastIso = "";

/**
 * ISO 8601 UTC with milliseconds and `Z`. A busy server asks for the same millisecond many times
 * (a send's rows and events share their timestamps), so the last answer is kept.
 */
export const isoAt = (ms: number): string => {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
};
