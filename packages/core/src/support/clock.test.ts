import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoAt } from "./clock.js";

describe("isoAt", () => {
  it("writes each millisecond as Date does, however the calls repeat and alternate", () => {
    // Bounded to the years 0 to 9999, the range ISO 8601's four-digit years hold.
    const ms = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 });
    fc.assert(
      fc.property(fc.array(fc.oneof(ms, fc.constant(0)), { maxLength: 20 }), (times) => {
        for (const time of [...times, ...times.toReversed()]) {
          expect(isoAt(time)).toBe(new Date(time).toISOString());
        }
      }),
    );
  });

  it("refuses a time Date cannot write every time it is asked, keeping nothing of it", () => {
    expect(isoAt(0)).toBe("1970-01-01T00:00:00.000Z");
    for (const time of [Number.POSITIVE_INFINITY, 8.64e15 + 1]) {
      expect(() => isoAt(time)).toThrow(RangeError);
      expect(() => isoAt(time)).toThrow(RangeError);
    }
    expect(isoAt(0)).toBe("1970-01-01T00:00:00.000Z");
  });
});
