import { parsePhoneNumber } from "libphonenumber-js/max";
import type { LocalCalendar } from "../ports.js";
import { isTimeZone } from "./zone-offsets.js";

/**
 * The zones a recipient may be in: the profile's own `time_zone` when it has one, else every
 * zone the number's prefix may be in. Names the runtime does not know (the data's
 * `Etc/Unknown` among them) are dropped, so `[]` means "no zone known".
 */
export function recipientZones(
  calendar: LocalCalendar,
  recipient: { phoneNumber: string; timeZone: string | null },
): string[] {
  if (recipient.timeZone !== null && isTimeZone(recipient.timeZone)) return [recipient.timeZone];
  return [...new Set(calendar.zonesOf(recipient.phoneNumber))].filter(isTimeZone);
}

/** The number's country (ISO 3166-1 alpha-2), or `null` for a number of no one country. */
export function numberCountry(phoneNumber: string): string | null {
  try {
    return parsePhoneNumber(phoneNumber).country ?? null;
  } catch {
    return null;
  }
}
