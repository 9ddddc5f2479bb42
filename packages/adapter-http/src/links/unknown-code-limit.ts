/** How many unknown codes one client address may ask for in a minute. */
export const UNKNOWN_CODES_PER_MINUTE = 60;
const MINUTE_MS = 60_000;
/** Addresses counted per minute at most: past it, new addresses share one count. */
const MAX_ADDRESSES = 100_000;
const OVERFLOW = "overflow";

/** The answer for one unknown code: allowed, or refused until the minute ends. */
export type UnknownCodeVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts unknown codes per client address in fixed one-minute windows, in this process: the
 * 61st of a minute and every later one are refused until the minute ends, so guessing codes
 * costs a minute per 60 guesses. Memory is bounded: the counts start afresh each minute, and
 * past `MAX_ADDRESSES` addresses in one minute the rest share a count.
 */
export function unknownCodeLimit(now: () => number, perMinute = UNKNOWN_CODES_PER_MINUTE) {
  let windowStart = Number.NEGATIVE_INFINITY;
  let counts = new Map<string, number>();
  return {
    hit(address: string): UnknownCodeVerdict {
      const at = now();
      const start = Math.floor(at / MINUTE_MS) * MINUTE_MS;
      if (start !== windowStart) {
        windowStart = start;
        counts = new Map();
      }
      const key = counts.has(address) || counts.size < MAX_ADDRESSES ? address : OVERFLOW;
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      if (count <= perMinute) return { allowed: true };
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((start + MINUTE_MS - at) / 1000)),
      };
    },
  };
}
