import type { NumberType } from "../ports.js";
import { LONGEST_NUMBER_TEXT, parsedPhone, RECENT_NUMBERS } from "../profiles/phone.js";
import { recentlyComputed } from "../support/recent.js";

/** What the abuse checks need to know of a recipient's number. */
export interface Destination {
  /** E.164. */
  number: string;
  /** Its libphonenumber-js `max` region (GG, JE and IM are their own); `null` when none. */
  country: string | null;
  /** Its libphonenumber type; `null` when libphonenumber cannot tell. */
  type: NumberType | null;
  /** The number without the last 3 digits of its national number (its range). */
  prefix: string;
}

function destination(e164: string): Destination | null {
  const parsed = parsedPhone(e164);
  if (parsed === null) return null;
  try {
    const national = parsed.nationalNumber;
    return Object.freeze({
      number: parsed.number,
      country: parsed.country ?? null,
      type: (parsed.getType() as NumberType | undefined) ?? null,
      prefix: `+${parsed.countryCallingCode}${national.slice(0, Math.max(0, national.length - 3))}`,
    });
  } catch {
    return null;
  }
}
const recentDestination = recentlyComputed(RECENT_NUMBERS, destination);

/**
 * The destination of an E.164 number, `null` when libphonenumber cannot read it. Remembered
 * for the last numbers asked, as their parse is, so a send's gate, its checks and its metrics
 * type its number once; frozen, since callers share it.
 */
export const destinationOf = (e164: string): Destination | null =>
  e164.length > LONGEST_NUMBER_TEXT ? destination(e164) : recentDestination(e164);
