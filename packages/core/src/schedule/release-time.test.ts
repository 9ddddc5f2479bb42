import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { manualClock } from "../support/clock.js";
import {
  type HolidayCheck,
  insideWindow,
  RELEASE_HORIZON_MS,
  releaseTime,
} from "./release-time.js";
import { type SendingWindow, WEEKDAYS } from "./sending-window.js";

const EVERY_DAY = [...WEEKDAYS];
const noHolidays: HolidayCheck = () => false;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const window = (start: string, end: string, days = EVERY_DAY, skip = false): SendingWindow => ({
  days,
  start,
  end,
  skipPublicHolidays: skip,
});

describe("releaseTime", () => {
  it("holds a 02:00 send in New York until 08:00 there", () => {
    const clock = manualClock(at("2026-06-10T06:00:00Z")); // 02:00 EDT
    const release = releaseTime({
      window: window("08:00", "21:00"),
      zones: ["America/New_York"],
      isHoliday: noHolidays,
      notBefore: clock.now(),
    });
    expect(iso(release)).toBe("2026-06-10T12:00:00.000Z");
  });

  it("answers the moment itself when it is inside the window", () => {
    const notBefore = at("2026-06-10T15:17:23.456Z"); // 11:17 EDT
    const release = releaseTime({
      window: window("08:00", "21:00"),
      zones: ["America/New_York"],
      isHoliday: noHolidays,
      notBefore,
    });
    expect(release).toBe(notBefore);
  });

  it("waits until the window is open in every zone a number may be in", () => {
    // 07:00 in New York, 04:00 in Los Angeles: open first at 09:00 in Los Angeles.
    const release = releaseTime({
      window: window("09:00", "20:00"),
      zones: ["America/New_York", "America/Los_Angeles"],
      isHoliday: noHolidays,
      notBefore: at("2026-06-10T11:00:00Z"),
    });
    expect(iso(release)).toBe("2026-06-10T16:00:00.000Z");
  });

  it("past the window's close in the eastern zone, waits for the next day's common stretch", () => {
    // 20:30 in New York (closed), 17:30 in Los Angeles (open).
    const release = releaseTime({
      window: window("09:00", "20:00"),
      zones: ["America/New_York", "America/Los_Angeles"],
      isHoliday: noHolidays,
      notBefore: at("2026-06-11T00:30:00Z"),
    });
    expect(iso(release)).toBe("2026-06-11T16:00:00.000Z");
  });

  it("finds no moment when the zones' windows never overlap", () => {
    // UTC+14 and UTC-11: a one-hour window at noon never meets.
    const release = releaseTime({
      window: window("12:00", "13:00"),
      zones: ["Pacific/Kiritimati", "Pacific/Pago_Pago"],
      isHoliday: noHolidays,
      notBefore: at("2026-06-10T00:00:00Z"),
    });
    expect(release).toBeNull();
  });

  it("finds no moment without a zone", () => {
    const release = releaseTime({
      window: window("09:00", "20:00"),
      zones: [],
      isHoliday: noHolidays,
      notBefore: at("2026-06-10T00:00:00Z"),
    });
    expect(release).toBeNull();
  });

  it("skips a public holiday on the zone's local date, and only when asked", () => {
    const bastilleDay: HolidayCheck = (date) => date === "2026-07-14";
    const query = {
      zones: ["Europe/Paris"],
      isHoliday: bastilleDay,
      notBefore: at("2026-07-14T05:00:00Z"), // Tuesday 07:00 in Paris
    };
    const skipping = releaseTime({
      ...query,
      window: window("09:00", "20:00", ["mon", "tue", "wed", "thu", "fri", "sat"], true),
    });
    expect(iso(skipping)).toBe("2026-07-15T07:00:00.000Z");
    const sending = releaseTime({
      ...query,
      window: window("09:00", "20:00", ["mon", "tue", "wed", "thu", "fri", "sat"], false),
    });
    expect(iso(sending)).toBe("2026-07-14T07:00:00.000Z");
  });

  it("asks about the holiday of each zone's own local date", () => {
    const asked: string[] = [];
    releaseTime({
      window: window("00:00", "24:00", EVERY_DAY, true),
      zones: ["Pacific/Auckland"],
      isHoliday: (date) => {
        asked.push(date);
        return false;
      },
      notBefore: at("2026-12-31T12:00:00Z"), // already 1 January in Auckland
    });
    expect(asked[0]).toBe("2027-01-01");
  });

  it("skips Sundays and a holiday Monday together", () => {
    const release = releaseTime({
      window: window("09:00", "20:00", ["mon", "tue", "wed", "thu", "fri", "sat"], true),
      zones: ["Europe/Paris"],
      isHoliday: (date) => date === "2026-05-25", // Whit Monday
      notBefore: at("2026-05-23T19:00:00Z"), // Saturday 21:00 in Paris
    });
    expect(iso(release)).toBe("2026-05-26T07:00:00.000Z");
  });

  it("opens at the transition when the window's start falls in a skipped hour", () => {
    // Paris springs forward on 2026-03-29 at 02:00 to 03:00: 02:30 never happens that day, so
    // the first moment at or after it on the wall clock is 03:00 CEST (01:00Z).
    const release = releaseTime({
      window: window("02:30", "04:00"),
      zones: ["Europe/Paris"],
      isHoliday: noHolidays,
      notBefore: at("2026-03-28T23:30:00Z"),
    });
    expect(iso(release)).toBe("2026-03-29T01:00:00.000Z");
  });

  it("uses the new offset after the clocks go back", () => {
    // New York falls back on 2026-11-01; 08:00 EST is 13:00Z, an hour later than the day before.
    const dayBefore = releaseTime({
      window: window("08:00", "21:00"),
      zones: ["America/New_York"],
      isHoliday: noHolidays,
      notBefore: at("2026-10-31T05:00:00Z"),
    });
    expect(iso(dayBefore)).toBe("2026-10-31T12:00:00.000Z");
    const dayOf = releaseTime({
      window: window("08:00", "21:00"),
      zones: ["America/New_York"],
      isHoliday: noHolidays,
      notBefore: at("2026-11-01T05:00:00Z"),
    });
    expect(iso(dayOf)).toBe("2026-11-01T13:00:00.000Z");
  });

  it("counts a repeated hour once the clocks go back in it", () => {
    // 01:00–02:00 happens twice in New York on 2026-11-01: the window is open during both.
    const second = at("2026-11-01T06:10:00Z"); // 01:10 EST, the second time round
    const release = releaseTime({
      window: window("01:00", "02:00"),
      zones: ["America/New_York"],
      isHoliday: noHolidays,
      notBefore: second,
    });
    expect(release).toBe(second);
  });

  it("keeps a window that ends at 24:00 open to the last minute of the day", () => {
    const fridays = window("22:00", "24:00", ["fri"]);
    const lastMinute = at("2026-06-12T21:59:30Z"); // Friday 23:59:30 in London (BST)
    expect(
      releaseTime({
        window: fridays,
        zones: ["Europe/London"],
        isHoliday: noHolidays,
        notBefore: lastMinute,
      }),
    ).toBe(lastMinute);
    const midnight = releaseTime({
      window: fridays,
      zones: ["Europe/London"],
      isHoliday: noHolidays,
      notBefore: at("2026-06-12T23:00:00Z"), // Saturday 00:00 in London
    });
    expect(iso(midnight)).toBe("2026-06-19T21:00:00.000Z");
  });

  it("finds nothing beyond the horizon", () => {
    // Only Mondays, and every day is a holiday.
    const release = releaseTime({
      window: window("09:00", "20:00", ["mon"], true),
      zones: ["UTC"],
      isHoliday: () => true,
      notBefore: at("2026-06-10T00:00:00Z"),
    });
    expect(release).toBeNull();
    expect(RELEASE_HORIZON_MS).toBe(8 * 24 * 60 * 60 * 1000);
  });
});

/** Zones with DST both ways, half and quarter hours, a 30-minute DST and the date line. */
const ZONES = [
  "America/New_York",
  "America/Los_Angeles",
  "America/Sao_Paulo",
  "America/St_Johns",
  "Europe/Paris",
  "Europe/London",
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "Australia/Lord_Howe",
  "Australia/Adelaide",
  "Pacific/Chatham",
  "Pacific/Kiritimati",
  "Pacific/Pago_Pago",
  "UTC",
] as const;

const hhmm = (minute: number) =>
  minute === 1440
    ? "24:00"
    : `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;

const windows = fc
  .record({
    days: fc.subarray([...WEEKDAYS], { minLength: 1 }),
    a: fc.integer({ min: 0, max: 1440 }),
    b: fc.integer({ min: 0, max: 1440 }),
    skip: fc.boolean(),
  })
  .filter(({ a, b }) => a !== b && Math.min(a, b) < 1440)
  .map(
    ({ days, a, b, skip }): SendingWindow => ({
      days,
      start: hhmm(Math.min(a, b)),
      end: hhmm(Math.max(a, b)),
      skipPublicHolidays: skip,
    }),
  );

/** A deterministic holiday calendar: some dates of each month, chosen by the seed. */
const holidays = fc.array(fc.integer({ min: 1, max: 28 }), { maxLength: 4 }).map(
  (days): HolidayCheck =>
    (date) =>
      days.includes(Number(date.slice(8, 10))),
);

const inAll = (w: SendingWindow, zones: readonly string[], t: number, h: HolidayCheck) =>
  zones.every((zone) => insideWindow(w, zone, t, h));

describe("releaseTime properties", () => {
  it("is inside the window in every zone, never early, and the first such moment", () => {
    fc.assert(
      fc.property(
        windows,
        fc.uniqueArray(fc.constantFrom(...ZONES), { minLength: 1, maxLength: 3 }),
        holidays,
        fc.integer({ min: at("2026-01-01T00:00:00Z"), max: at("2028-01-01T00:00:00Z") }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 8, maxLength: 8 }),
        (w, zones, isHoliday, notBefore, probes) => {
          const release = releaseTime({ window: w, zones, isHoliday, notBefore });
          const searched = release ?? notBefore + RELEASE_HORIZON_MS;
          if (release !== null) {
            expect(release).toBeGreaterThanOrEqual(notBefore);
            expect(release).toBeLessThan(notBefore + RELEASE_HORIZON_MS);
            expect(inAll(w, zones, release, isHoliday)).toBe(true);
          }
          // Nothing earlier (or, with no answer, nothing within the horizon) is inside.
          for (const probe of probes) {
            const t = Math.floor(notBefore + probe * (searched - notBefore));
            if (t < searched) expect(inAll(w, zones, t, isHoliday)).toBe(false);
          }
          if (release !== null && release - 60_000 >= notBefore) {
            expect(inAll(w, zones, release - 60_000, isHoliday)).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
