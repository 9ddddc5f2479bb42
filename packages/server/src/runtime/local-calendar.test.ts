import { decideSchedule, RECOMMENDED_SENDING_WINDOW } from "@tidings/core";
import { describe, expect, it } from "vitest";
import { loadedLocalCalendar } from "./local-calendar.js";

describe("loadedLocalCalendar", () => {
  const calendar = loadedLocalCalendar();

  it("knows the zones of a number's prefix, one or several", () => {
    expect(calendar.zonesOf("+12125550100")).toEqual(["America/New_York"]);
    expect(calendar.zonesOf("+33612345678")).toEqual(["Europe/Paris"]);
    // A US toll-free number may be anywhere the country's zones are.
    const tollFree = calendar.zonesOf("+18005550100");
    expect(tollFree.length).toBeGreaterThan(5);
    expect(tollFree).toEqual(expect.arrayContaining(["America/New_York", "America/Los_Angeles"]));
    // Russia's +7 mobile range spans many zones.
    expect(calendar.zonesOf("+79161234567").length).toBeGreaterThan(0);
  });

  it("knows public holidays, and only public ones", () => {
    expect(calendar.isPublicHoliday("FR", "2026-07-14")).toBe(true);
    expect(calendar.isPublicHoliday("FR", "2026-07-15")).toBe(false);
    expect(calendar.isPublicHoliday("US", "2026-07-04")).toBe(true);
    expect(calendar.isPublicHoliday("US", "2026-11-26")).toBe(true);
    // Christmas Eve is not a public holiday in the US data (an optional or bank one at most).
    expect(calendar.isPublicHoliday("US", "2026-12-24")).toBe(false);
    expect(calendar.isPublicHoliday("ZZ", "2026-01-01")).toBe(false);
  });

  it("finds no sending time for a US toll-free number without the profile's time_zone", () => {
    const query = {
      window: RECOMMENDED_SENDING_WINDOW,
      now: Date.parse("2026-06-10T12:00:00Z"),
      sendAt: null,
    };
    expect(
      decideSchedule(calendar, {
        ...query,
        recipient: { phoneNumber: "+18005550100", timeZone: null },
      })._unsafeUnwrapErr().code,
    ).toBe("no_sending_time");
    expect(
      decideSchedule(calendar, {
        ...query,
        recipient: { phoneNumber: "+18005550100", timeZone: "America/Chicago" },
      }).isOk(),
    ).toBe(true);
  });

  it("decides a French promotional send on 14 July through the real data", () => {
    const decision = decideSchedule(calendar, {
      window: RECOMMENDED_SENDING_WINDOW,
      recipient: { phoneNumber: "+33612345678", timeZone: null },
      now: Date.parse("2026-07-14T08:00:00Z"),
      sendAt: null,
    });
    expect(decision._unsafeUnwrap()).toEqual({
      release: "later",
      at: Date.parse("2026-07-15T07:00:00Z"),
    });
  });
});
