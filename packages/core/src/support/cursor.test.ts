import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./cursor.js";

describe("cursors (docs/decisions.md: Lists and cursors)", () => {
  it("a cursor decodes back to its sequence", () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (seq) => {
        expect(decodeCursor(encodeCursor(seq))).toBe(seq);
      }),
    );
  });

  it("text that is not a cursor this service made does not decode", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const seq = decodeCursor(text);
        if (seq !== null) expect(encodeCursor(seq)).toBe(text);
      }),
      { numRuns: 1000 },
    );
    for (const text of [
      "",
      "abc",
      "-1",
      encodeCursor(1).padEnd(30, "A"),
      Buffer.from("01").toString("base64url"),
    ]) {
      expect(decodeCursor(text), text).toBeNull();
    }
  });
});
