import { describe, expect, it } from "vitest";
import type { LocalCalendar } from "../ports.js";
import { manualClock } from "../support/clock.js";
import { parseInput } from "../support/parse.js";
import { recipientZones } from "./recipient-zones.js";
import { decideSchedule } from "./schedule-decision.js";
import {
  RECOMMENDED_SENDING_WINDOW,
  sendingWindowInput,
  toSendingWindow,
  toSendingWindowView,
} from "./sending-window.js";

/** A calendar that knows a few prefixes and a few holidays, and counts its lookups. */
function fakeCalendar(): LocalCalendar & { lookups: string[] } {
  const zones: Record<string, string[]> = {
    "+1212": ["America/New_York"],
    "+1800": ["America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles"],
    "+3361": ["Europe/Paris"],
    "+99": ["Etc/Unknown"],
  };
  const holidays = new Set(["FR 2026-07-14", "US 2026-07-04", "US 2026-07-03"]);
  const lookups: string[] = [];
  return {
    lookups,
    zonesOf(phoneNumber) {
      lookups.push(phoneNumber);
      for (let length = phoneNumber.length; length > 1; length--) {
        const found = zones[phoneNumber.slice(0, length)];
        if (found) return found;
      }
      return [];
    },
    isPublicHoliday: (country, date) => holidays.has(`${country} ${date}`),
  };
}

const at = (iso: string) => Date.parse(iso);

describe("sending window input", () => {
  const parse = (input: unknown) => parseInput(sendingWindowInput, input, "sending_window");

  it("takes null, and a window with days, start, end and the holiday flag", () => {
    expect(parse(null)._unsafeUnwrap()).toBeNull();
    const window = toSendingWindow(
      parse({ days: ["sat", "mon"], start: "09:00", end: "24:00" })._unsafeUnwrap(),
    );
    expect(window).toEqual({
      days: ["mon", "sat"],
      start: "09:00",
      end: "24:00",
      skipPublicHolidays: false,
    });
    expect(toSendingWindowView(RECOMMENDED_SENDING_WINDOW)).toEqual({
      days: ["mon", "tue", "wed", "thu", "fri", "sat"],
      start: "09:00",
      end: "20:00",
      skip_public_holidays: true,
    });
  });

  it.each([
    [{ days: ["mon", "funday"], start: "09:00", end: "20:00" }, "sending_window.days[1]"],
    [{ days: [], start: "09:00", end: "20:00" }, "sending_window.days"],
    [{ days: ["mon", "mon"], start: "09:00", end: "20:00" }, "sending_window.days"],
    [{ days: ["mon"], start: "9:00", end: "20:00" }, "sending_window.start"],
    [{ days: ["mon"], start: "24:00", end: "24:00" }, "sending_window.start"],
    [{ days: ["mon"], start: "09:00", end: "20:60" }, "sending_window.end"],
    [{ days: ["mon"], start: "20:00", end: "09:00" }, "sending_window.end"],
    [{ days: ["mon"], start: "09:00", end: "09:00" }, "sending_window.end"],
    [
      { days: ["mon"], start: "09:00", end: "20:00", skip_public_holidays: "yes" },
      "sending_window.skip_public_holidays",
    ],
    [{ days: ["mon"], start: "09:00", end: "20:00", timezone: "UTC" }, "sending_window.timezone"],
    ["mon-fri", "sending_window"],
  ])("refuses %j naming %s", (input, path) => {
    const issues = parse(input)._unsafeUnwrapErr().issues;
    expect(issues.map((issue) => issue.path)).toContain(path);
  });
});

describe("recipientZones", () => {
  it("prefers the profile's zone, else the prefix's, dropping names the runtime does not know", () => {
    const calendar = fakeCalendar();
    expect(
      recipientZones(calendar, { phoneNumber: "+12125550100", timeZone: "Europe/Berlin" }),
    ).toEqual(["Europe/Berlin"]);
    expect(recipientZones(calendar, { phoneNumber: "+12125550100", timeZone: null })).toEqual([
      "America/New_York",
    ]);
    expect(recipientZones(calendar, { phoneNumber: "+99123456", timeZone: null })).toEqual([]);
  });
});

describe("decideSchedule", () => {
  const promo = RECOMMENDED_SENDING_WINDOW;

  it("sends now without a window or send_at, and when the window is open", () => {
    const calendar = fakeCalendar();
    const clock = manualClock(at("2026-06-10T15:00:00Z"));
    const recipient = { phoneNumber: "+12125550100", timeZone: null };
    expect(
      decideSchedule(calendar, { window: null, recipient, now: clock.now(), sendAt: null }),
    ).toEqual(expect.objectContaining({ value: { release: "now" } }));
    expect(
      decideSchedule(calendar, { window: promo, recipient, now: clock.now(), sendAt: null }),
    ).toEqual(expect.objectContaining({ value: { release: "now" } }));
  });

  it("holds a send_at without a window until send_at, and a past send_at goes now", () => {
    const calendar = fakeCalendar();
    const now = at("2026-06-10T03:00:00Z");
    const recipient = { phoneNumber: "+12125550100", timeZone: null };
    const later = decideSchedule(calendar, {
      window: null,
      recipient,
      now,
      sendAt: now + 5_000,
    })._unsafeUnwrap();
    expect(later).toEqual({ release: "later", at: now + 5_000 });
    // No window: no zone is needed either.
    expect(calendar.lookups).toEqual([]);
    expect(
      decideSchedule(calendar, { window: null, recipient, now, sendAt: now - 1 })._unsafeUnwrap(),
    ).toEqual({ release: "now" });
  });

  it("moves a send_at inside the night to the window's opening", () => {
    const decision = decideSchedule(fakeCalendar(), {
      window: promo,
      recipient: { phoneNumber: "+12125550100", timeZone: null },
      now: at("2026-06-10T15:00:00Z"),
      sendAt: at("2026-06-11T04:00:00Z"), // midnight in New York
    })._unsafeUnwrap();
    expect(decision).toEqual({ release: "later", at: at("2026-06-11T13:00:00Z") });
  });

  it("skips the number's country's holidays, on the zone's date", () => {
    const decision = decideSchedule(fakeCalendar(), {
      window: promo,
      recipient: { phoneNumber: "+33612345678", timeZone: null },
      now: at("2026-07-13T19:00:00Z"), // Monday 21:00 in Paris; Tuesday is 14 July
      sendAt: null,
    })._unsafeUnwrap();
    expect(decision).toEqual({ release: "later", at: at("2026-07-15T07:00:00Z") });
  });

  it("waits for the window in every zone of a toll-free prefix", () => {
    const decision = decideSchedule(fakeCalendar(), {
      window: promo,
      recipient: { phoneNumber: "+18005550100", timeZone: null },
      now: at("2026-06-10T12:00:00Z"), // 08:00 in New York, 05:00 in Los Angeles
      sendAt: null,
    })._unsafeUnwrap();
    expect(decision).toEqual({ release: "later", at: at("2026-06-10T16:00:00Z") });
  });

  it("is 422 no_sending_time with no zone known, naming the profile's time_zone", () => {
    const refused = decideSchedule(fakeCalendar(), {
      window: promo,
      recipient: { phoneNumber: "+99123456", timeZone: null },
      now: at("2026-06-10T12:00:00Z"),
      sendAt: null,
    })._unsafeUnwrapErr();
    expect(refused).toMatchObject({ type: "unprocessable", code: "no_sending_time" });
    expect(refused.message).toContain("time_zone");
  });

  it("is 422 no_sending_time when no moment in 8 days is inside in every zone", () => {
    const refused = decideSchedule(fakeCalendar(), {
      window: { days: ["mon"], start: "09:00", end: "10:00", skipPublicHolidays: false },
      recipient: { phoneNumber: "+18005550100", timeZone: null },
      now: at("2026-06-10T12:00:00Z"),
      sendAt: null,
    })._unsafeUnwrapErr();
    expect(refused.code).toBe("no_sending_time");
  });
});
