import fc from "fast-check";
import {
  getCountries,
  getCountryCallingCode,
  parsePhoneNumberWithError,
} from "libphonenumber-js/max";
import { describe, expect, it } from "vitest";
import { normalizePhone } from "./phone.js";

/** Numbers libphonenumber-js accepts as valid, found by sampling national digits per country. */
const validE164 = fc
  .tuple(fc.constantFrom(...getCountries()), fc.stringMatching(/^[1-9][0-9]{5,11}$/))
  .map(([country, digits]) => {
    try {
      const parsed = parsePhoneNumberWithError(`+${getCountryCallingCode(country)}${digits}`);
      return parsed.isValid() ? parsed : null;
    } catch {
      return null;
    }
  })
  .filter((parsed) => parsed !== null);

describe("phone normalization (docs/decisions.md: Phone numbers)", () => {
  it("every E.164 number libphonenumber-js accepts round-trips unchanged", () => {
    fc.assert(
      fc.property(validE164, (parsed) => {
        expect(normalizePhone(parsed!.number)._unsafeUnwrap()).toBe(parsed!.number);
      }),
      { numRuns: 300 },
    );
  });

  it("formatted variants (spaces, dashes, dots, parentheses) normalize to the same E.164", () => {
    fc.assert(
      fc.property(validE164, fc.constantFrom(" ", "-", ".", "  "), (parsed, separator) => {
        const international = parsed!.formatInternational();
        const variants = [
          international,
          international.replaceAll(" ", separator),
          ` ${parsed!.number} `,
        ];
        for (const variant of variants) {
          expect(normalizePhone(variant)._unsafeUnwrap()).toBe(parsed!.number);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("garbage is refused with a sentence for the field", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `+${s}x`),
          fc.stringMatching(/^[0-9]{6,15}$/),
          fc.stringMatching(/^\+[a-z]{3,12}$/),
        ),
        (garbage) => {
          const result = normalizePhone(garbage);
          if (result.isOk()) {
            // Only strings that really are phone numbers may pass.
            expect(garbage.trim().startsWith("+")).toBe(true);
            expect(/[a-z]/i.test(garbage)).toBe(false);
          } else {
            expect(result.error).toMatch(/\.$/);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("input must start with + (a national number is refused)", () => {
    expect(normalizePhone("4155552671").isErr()).toBe(true);
    expect(normalizePhone("0044 20 7183 8750").isErr()).toBe(true);
  });

  it("a number inside other text is refused (extract: false)", () => {
    for (const text of [
      "tel:+14155552671",
      "call +14155552671 now",
      "+14155552671 now",
      "+1 415 555 2671, +1 415 555 2672",
    ]) {
      expect(normalizePhone(text).isErr(), text).toBe(true);
    }
  });

  it("extensions are refused", () => {
    for (const text of ["+1 415 555 2671 ext. 12", "+1 415 555 2671 x12", "+14155552671;ext=1"]) {
      expect(normalizePhone(text)._unsafeUnwrapErr()).toMatch(/extension/);
    }
  });

  it("RFC 3966 parameters are refused, not dropped", () => {
    for (const text of [
      "+1 415 555 2671;isub=123",
      "+14155552671;phone-context=+1",
      "+1 415 555 2671=",
    ]) {
      expect(normalizePhone(text).isErr(), text).toBe(true);
    }
  });

  it("an invalid number with a + is refused", () => {
    for (const text of ["+", "+0", "+1", "+999999999999", "+1 555 0100"]) {
      expect(normalizePhone(text).isErr(), text).toBe(true);
    }
  });

  it("answers the same for a number read again, padded or not, and for a refusal read again", () => {
    for (let round = 0; round < 2; round += 1) {
      expect(normalizePhone("+44 7911 123456")._unsafeUnwrap()).toBe("+447911123456");
      // Longer than 40 characters as given, a number once trimmed: read, and not remembered.
      expect(normalizePhone(`${" ".repeat(100_000)}+447911123456 `)._unsafeUnwrap()).toBe(
        "+447911123456",
      );
      expect(normalizePhone("+44 7911 123456 ext. 5").isErr()).toBe(true);
      expect(normalizePhone(`+${"1".repeat(50)}`)._unsafeUnwrapErr()).toBe(
        "is too long to be a phone number.",
      );
    }
  });
});
