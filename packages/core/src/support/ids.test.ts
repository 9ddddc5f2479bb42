import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { manualClock } from "./clock.js";
import { base32, createIds, isPrefixedId, isUuidV7 } from "./ids.js";

/** The plain definition: the 128-bit big-endian number, 5 bits per character from the right. */
function base32Reference(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = "";
  for (let i = 0; i < 26; i++) {
    out = "0123456789abcdefghjkmnpqrstvwxyz"[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

describe("ids", () => {
  it("message and delivery ids are UUID v7, strictly increasing within one millisecond", () => {
    const ids = createIds(manualClock());
    const made = Array.from({ length: 10_000 }, () => ids.uuidv7());
    for (const id of made) expect(isUuidV7(id)).toBe(true);
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });

  it("a UUID v7 carries the clock's millisecond timestamp", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 47 }), (ms) => {
        const id = createIds(manualClock(ms)).uuidv7();
        expect(Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(ms);
      }),
    );
  });

  it("public ids are prefixed, 26 base32 characters, and time-ordered", () => {
    const clock = manualClock();
    const ids = createIds(clock);
    const made: string[] = [];
    for (let i = 0; i < 2_000; i++) {
      if (i % 7 === 0) clock.advance(1);
      made.push(ids.prefixed("prf"));
    }
    for (const id of made) expect(isPrefixedId(id, "prf")).toBe(true);
    expect([...made].sort()).toEqual(made);
    expect(isPrefixedId(made[0]!, "cmp")).toBe(false);
  });

  it("base32 is the 128-bit number in Crockford's alphabet", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        expect(base32(bytes)).toBe(base32Reference(bytes));
      }),
    );
    expect(base32(new Uint8Array(16).fill(255))).toBe(`7${"z".repeat(25)}`);
  });
});
