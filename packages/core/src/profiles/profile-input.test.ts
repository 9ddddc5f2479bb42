import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { codePointLength, createProfileInput } from "./profile-input.js";

const char = fc.oneof(
  fc.constantFrom("a", "é", "ж", "中", "😀", "👩🏽", "𝔘", "ß"),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
);

describe("name length in code points (docs/decisions.md Names)", () => {
  it("a name of n code points is accepted exactly when 2 <= n <= 100 after trimming", () => {
    fc.assert(
      fc.property(fc.array(char, { minLength: 0, maxLength: 110 }), (chars) => {
        const name = chars.join("").trim();
        const n = codePointLength(name);
        const parsed = v.safeParse(createProfileInput, {
          phone_number: "+14155552671",
          first_name: name,
        });
        expect(parsed.success).toBe(n >= 2 && n <= 100);
      }),
      { numRuns: 400 },
    );
  });

  it("the boundaries fall on the right side, with astral characters counted once", () => {
    const accepts = (name: string) =>
      v.safeParse(createProfileInput, { phone_number: "+14155552671", last_name: name }).success;
    expect(accepts("😀")).toBe(false);
    expect(accepts("😀😀")).toBe(true);
    expect(accepts("😀".repeat(100))).toBe(true);
    expect(accepts("😀".repeat(101))).toBe(false);
    expect(accepts("a".repeat(100))).toBe(true);
    expect(accepts(` ${"a".repeat(100)} `)).toBe(true);
    expect(accepts("a".repeat(101))).toBe(false);
    expect(accepts("  a  ")).toBe(false);
  });
});
