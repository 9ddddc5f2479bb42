/**
 * A time zone's offsets from UTC, read from the runtime's own zone data through `Intl`: no
 * table of ours. An offset holds between two transitions, which are found by sampling and then
 * bisection to the second (no zone changes its offset twice within the sampling step).
 */

const SECOND = 1000;
/** Sampling step when looking for transitions; zones change offset months apart. */
const STEP = 6 * 60 * 60 * 1000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let found = formatters.get(zone);
  if (found === undefined) {
    found = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, found);
  }
  return found;
}

/** Whether the runtime knows `zone` as an IANA time zone (`Europe/Paris`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  if (zone.trim() === "" || zone !== zone.trim()) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** How far `zone`'s wall clock is ahead of UTC at `at`, in ms (negative west of Greenwich). */
export function offsetAt(zone: string, at: number): number {
  const fields: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(at)) {
    if (part.type !== "literal") fields[part.type] = Number(part.value);
  }
  const wall = Date.UTC(
    fields.year ?? 0,
    (fields.month ?? 1) - 1,
    fields.day ?? 1,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  return wall - Math.floor(at / SECOND) * SECOND;
}

/** A stretch of time over which a zone's offset does not change: `[from, to)`. */
export interface OffsetSegment {
  from: number;
  to: number;
  offset: number;
}

/** The first instant (to the second) in `(low, high]` at which the offset is `offset(high)`. */
function transitionBetween(zone: string, low: number, high: number): number {
  const before = offsetAt(zone, low);
  let lo = Math.floor(low / SECOND);
  let hi = Math.ceil(high / SECOND);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(zone, mid * SECOND) === before) lo = mid;
    else hi = mid;
  }
  return hi * SECOND;
}

/** `zone`'s offsets over `[from, to)`, split at each transition. */
export function offsetSegments(zone: string, from: number, to: number): OffsetSegment[] {
  const segments: OffsetSegment[] = [];
  let start = from;
  let offset = offsetAt(zone, from);
  let probe = from;
  while (probe < to) {
    const next = Math.min(probe + STEP, to);
    const nextOffset = offsetAt(zone, next);
    if (nextOffset !== offset) {
      const at = transitionBetween(zone, probe, next);
      if (at > start) segments.push({ from: start, to: Math.min(at, to), offset });
      start = at;
      offset = nextOffset;
    }
    probe = next;
  }
  if (start < to) segments.push({ from: start, to, offset });
  return segments;
}
