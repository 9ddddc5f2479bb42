import { parsePhoneNumberWithError } from "libphonenumber-js/max";
import { err, ok, type Result } from "neverthrow";

/**
 * Normalizes a phone number to E.164. Only input starting with `+` that libphonenumber-js
 * parses as a whole (`extract: false`, so `tel:+1…` or `call +1… now` is refused) and accepts
 * as a valid number is allowed; spaces, dashes, dots and parentheses are tolerated; extensions
 * are refused. The error is a sentence for the field's issue.
 */
/** A + and then digits of any script with the usual separators; nothing else is a number. */
const PHONE_CHARACTERS = /^\+[\p{Nd}\s().\-\u2010-\u2015/]*$/u;

export function normalizePhone(input: string): Result<string, string> {
  const trimmed = input.trim();
  if (!trimmed.startsWith("+")) {
    return err("must be an international phone number in E.164 format, starting with +.");
  }
  if (trimmed.length > 40) return err("is too long to be a phone number.");
  try {
    const parsed = parsePhoneNumberWithError(trimmed, { extract: false });
    if (parsed.ext) return err("must not have an extension.");
    // libphonenumber-js reads and drops RFC 3966 parameters such as `;isub=5`.
    if (!PHONE_CHARACTERS.test(trimmed)) {
      return err("must hold only digits, spaces, dashes, dots and parentheses after the +.");
    }
    if (!parsed.isValid()) return err("is not a valid phone number.");
    return ok(parsed.number);
  } catch {
    return err("is not a valid phone number.");
  }
}
