import type { DestinationCounter } from "../ports.js";

/**
 * When `counter` is full at `now`: the milliseconds until it has room again, else `null`.
 * `hits` are the counter's counted send times (a sliding counter), `total` its stored total
 * and when that ends (a fixed one; an ended total counts nothing). Every storage decides with
 * the same rule; the SQL storages write it in SQL.
 */
export function destinationRefusal(
  counter: DestinationCounter,
  now: number,
  hits: readonly number[],
  total: { n: number; until: number } | undefined,
): number | null {
  if (!("windows" in counter)) {
    if (total === undefined || total.until <= now) return null;
    return total.n >= counter.total.limit ? total.until - now : null;
  }
  let wait: number | null = null;
  for (const { windowMs, limit } of counter.windows) {
    const counted = hits.filter((t) => t > now - windowMs).sort((a, b) => a - b);
    if (counted.length < limit) continue;
    // Room again once enough of the oldest have left for one more to fit.
    const leaving = counted[counted.length - limit] ?? now;
    const reset = Math.max(1, leaving + windowMs - now);
    wait = wait === null ? reset : Math.max(wait, reset);
  }
  return wait;
}
