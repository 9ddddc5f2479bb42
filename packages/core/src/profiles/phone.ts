import { type PhoneNumber, parsePhoneNumberWithError } from "libphonenumber-js/max";
import { err, ok, type Result } from "neverthrow";
import { recentlyComputed } from "../support/recent.js";

/** A + and then digits of any script with the usual separators; nothing else is a number. */
const PHONE_CHARACTERS = /^\+[\p{Nd}\s().\-\u2010-\u2015/]*$/u;

/**
 * The longest text `normalizePhone` reads as a number (anything longer it refuses unread), and
 * the longest text whose reading is remembered below. Only text this short is remembered, as
 * given: a key is kept whole, and a short number cut from a long text (the `trim` of a megabyte
 * of spaces) would keep the whole text alive.
 */
export const LONGEST_NUMBER_TEXT = 40;

/**
 * How many distinct numbers the reads below remember: enough for every request in flight to
 * find its number read by the step before, too few to hold a busy server's traffic.
 */
export const RECENT_NUMBERS = 512;

const parse = (text: string): PhoneNumber | null => {
  try {
    return parsePhoneNumberWithError(text, { extract: false });
  } catch {
    return null;
  }
};
const recentParse = recentlyComputed(RECENT_NUMBERS, parse);

/**
 * libphonenumber-js's reading of `text` as a whole (`extract: false`), `null` when it cannot
 * read it. Remembered for the last numbers read: parsing with the `max` metadata is the
 * dearest step of a send's checks, and a send reads its number up to four times (its gate,
 * its checks, its destination, its metrics).
 */
export const parsedPhone = (text: string): PhoneNumber | null =>
  text.length > LONGEST_NUMBER_TEXT ? parse(text) : recentParse(text);

/** `trimmed` in E.164, or why it is not a number, from its reading `parsed`. */
function normalizedFrom(trimmed: string, parsed: PhoneNumber | null): Result<string, string> {
  if (parsed === null) return err("is not a valid phone number.");
  if (parsed.ext) return err("must not have an extension.");
  // libphonenumber-js reads and drops RFC 3966 parameters such as `;isub=5`.
  if (!PHONE_CHARACTERS.test(trimmed)) {
    return err("must hold only digits, spaces, dashes, dots and parentheses after the +.");
  }
  try {
    return parsed.isValid() ? ok(parsed.number) : err("is not a valid phone number.");
  } catch {
    return err("is not a valid phone number.");
  }
}
const recentNormalized = recentlyComputed(RECENT_NUMBERS, (trimmed: string) =>
  normalizedFrom(trimmed, recentParse(trimmed)),
);

/**
 * Normalizes a phone number to E.164. Only input starting with `+` that libphonenumber-js
 * parses as a whole (`extract: false`, so `tel:+1…` or `call +1… now` is refused) and accepts
 * as a valid number is allowed; spaces, dashes, dots and parentheses are tolerated; extensions
 * are refused. The error is a sentence for the field's issue.
 */
export function normalizePhone(input: string): Result<string, string> {
  const trimmed = input.trim();
  if (!trimmed.startsWith("+")) {
    return err("must be an international phone number in E.164 format, starting with +.");
  }
  if (trimmed.length > LONGEST_NUMBER_TEXT) return err("is too long to be a phone number.");
  // Padded text is read but not remembered (see LONGEST_NUMBER_TEXT).
  return input.length > LONGEST_NUMBER_TEXT
    ? normalizedFrom(trimmed, parse(trimmed))
    : recentNormalized(trimmed);
}
