import { minutesOf, type SendingWindow, WEEKDAYS } from "./sending-window.js";
import { offsetAt, offsetSegments } from "./zone-offsets.js";

const MINUTE = 60 * 1000;
const DAY = 24 * 60 * MINUTE;

/** How far ahead a release time is looked for before the send is refused (8 days). */
export const RELEASE_HORIZON_MS = 8 * DAY;

/** `[from, to)` in ms since the epoch. */
export interface Interval {
  from: number;
  to: number;
}

/** Whether a local date (`YYYY-MM-DD`) is a public holiday where the number is. */
export type HolidayCheck = (localDate: string) => boolean;

/** The `YYYY-MM-DD` of a day counted from 1970-01-01. */
const dateOfDay = (day: number): string => new Date(day * DAY).toISOString().slice(0, 10);

/** Whether the window is open on a local day counted from 1970-01-01 (a Thursday). */
function dayOpen(window: SendingWindow, day: number, isHoliday: HolidayCheck): boolean {
  const weekday = WEEKDAYS[(((day + 4) % 7) + 7) % 7];
  if (weekday === undefined || !window.days.includes(weekday)) return false;
  return !(window.skipPublicHolidays && isHoliday(dateOfDay(day)));
}

/**
 * Whether `at` is inside the window on `zone`'s wall clock: an open day, at or after `start`
 * and before `end`. The straightforward definition the interval computation must agree with.
 */
export function insideWindow(
  window: SendingWindow,
  zone: string,
  at: number,
  isHoliday: HolidayCheck,
): boolean {
  const wall = at + offsetAt(zone, at);
  const day = Math.floor(wall / DAY);
  const minute = (wall - day * DAY) / MINUTE;
  return (
    dayOpen(window, day, isHoliday) &&
    minute >= minutesOf(window.start) &&
    minute < minutesOf(window.end)
  );
}

/** The stretches of `[from, to)` inside the window on `zone`'s wall clock, in order. */
export function openIntervals(
  window: SendingWindow,
  zone: string,
  from: number,
  to: number,
  isHoliday: HolidayCheck,
): Interval[] {
  const start = minutesOf(window.start) * MINUTE;
  const end = minutesOf(window.end) * MINUTE;
  const open: Interval[] = [];
  for (const segment of offsetSegments(zone, from, to)) {
    // Within a segment the wall clock is the instant plus one offset, so each open local
    // day's window maps back to one interval of instants.
    const firstDay = Math.floor((segment.from + segment.offset) / DAY);
    const lastDay = Math.floor((segment.to - 1 + segment.offset) / DAY);
    for (let day = firstDay; day <= lastDay; day++) {
      if (!dayOpen(window, day, isHoliday)) continue;
      const opens = Math.max(day * DAY + start - segment.offset, segment.from);
      const closes = Math.min(day * DAY + end - segment.offset, segment.to);
      if (opens >= closes) continue;
      const last = open[open.length - 1];
      // A window running across a transition is one stretch, not two.
      if (last !== undefined && last.to >= opens) last.to = Math.max(last.to, closes);
      else open.push({ from: opens, to: closes });
    }
  }
  return open;
}

/** The stretches two ordered lists of intervals have in common, in order. */
export function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const both: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as Interval;
    const y = b[j] as Interval;
    const from = Math.max(x.from, y.from);
    const to = Math.min(x.to, y.to);
    if (from < to) both.push({ from, to });
    if (x.to < y.to) i++;
    else j++;
  }
  return both;
}

/** What the release time of one message depends on. */
export interface ReleaseQuery {
  window: SendingWindow;
  /** Every zone the recipient may be in; the moment must be inside the window in each. */
  zones: readonly string[];
  /** The public holidays of the number's country. */
  isHoliday: HolidayCheck;
  /** `max(now, send_at)`: no release before it. */
  notBefore: number;
}

/**
 * The first moment at or after `notBefore` that is inside the window in every zone, or `null`
 * when there is none within `RELEASE_HORIZON_MS` (or no zone to judge by).
 */
export function releaseTime(query: ReleaseQuery): number | null {
  if (query.zones.length === 0) return null;
  const from = query.notBefore;
  const to = from + RELEASE_HORIZON_MS;
  let common: Interval[] | null = null;
  for (const zone of new Set(query.zones)) {
    const open = openIntervals(query.window, zone, from, to, query.isHoliday);
    common = common === null ? open : intersect(common, open);
    if (common.length === 0) return null;
  }
  return common?.[0]?.from ?? null;
}
