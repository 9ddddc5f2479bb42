import type { Clock } from "../ports.js";

/** The time retention deletes by, and how far the wall clock jumped since the last reading. */
export interface RetentionTime {
  /** Milliseconds since the epoch, never ahead of the wall clock. */
  now: number;
  /**
   * How far the wall clock moved beyond (positive) or behind (negative) the time that really
   * passed since the last reading; 0 without a monotonic source or on the first reading.
   */
  jumpMs: number;
}

/** Reads the time retention uses. */
export interface RetentionClock {
  read(): RetentionTime;
}

/**
 * A clock for deleting by age that a jump of the wall clock cannot fool into deleting early:
 * between two readings it moves forward by no more than the monotonic time that passed (so
 * a clock set a week ahead does not delete a week of data at once), and it follows the wall
 * clock back at once (deleting less is always safe). After a forward jump it lags the wall
 * clock by the jump, which only keeps data longer. Without `monotonic` it is the wall clock.
 */
export function retentionClock(
  wall: Clock,
  monotonic?: (() => number) | undefined,
): RetentionClock {
  let last: { wall: number; mono: number; now: number } | null = null;
  return {
    read() {
      const wallNow = wall.now();
      if (monotonic === undefined) return { now: wallNow, jumpMs: 0 };
      const mono = monotonic();
      if (last === null) {
        last = { wall: wallNow, mono, now: wallNow };
        return { now: wallNow, jumpMs: 0 };
      }
      const elapsed = Math.max(0, mono - last.mono);
      // Whole milliseconds, as the wall clock reads: monotonic time has fractions.
      const now = Math.floor(Math.min(wallNow, last.now + elapsed));
      const jumpMs = Math.round(wallNow - (last.wall + elapsed));
      last = { wall: wallNow, mono, now };
      return { now, jumpMs };
    },
  };
}
