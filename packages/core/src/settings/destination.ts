import { parsePhoneNumberWithError } from "libphonenumber-js/max";
import type { NumberType } from "../ports.js";

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

/** The destination of an E.164 number, `null` when libphonenumber cannot read it. */
export function destinationOf(e164: string): Destination | null {
  try {
    const parsed = parsePhoneNumberWithError(e164, { extract: false });
    const national = parsed.nationalNumber;
    return {
      number: parsed.number,
      country: parsed.country ?? null,
      type: (parsed.getType() as NumberType | undefined) ?? null,
      prefix: `+${parsed.countryCallingCode}${national.slice(0, Math.max(0, national.length - 3))}`,
    };
  } catch {
    return null;
  }
}
