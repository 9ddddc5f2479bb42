import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { aesGcmSecretBox, generateSecretKey, parseSecretKey } from "./secret-box.js";

const key = randomBytes(32);
const box = aesGcmSecretBox(key);

describe("aesGcmSecretBox (secrets at rest are AES-256-GCM)", () => {
  it("opens what it sealed, for any text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (plaintext) => {
        expect(box.open(box.seal(plaintext))).toBe(plaintext);
      }),
    );
  });

  it("writes v1.<iv>.<ciphertext>.<tag> with a 12-byte IV and a 16-byte tag, in base64url", () => {
    const sealed = box.seal("whsec_abc");
    const [version, iv, ciphertext, tag, ...rest] = sealed.split(".");
    expect(version).toBe("v1");
    expect(rest).toEqual([]);
    expect(Buffer.from(iv ?? "", "base64url")).toHaveLength(12);
    expect(Buffer.from(tag ?? "", "base64url")).toHaveLength(16);
    expect(Buffer.from(ciphertext ?? "", "base64url")).toHaveLength("whsec_abc".length);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain("whsec_abc");
  });

  it("uses a fresh IV every time, so the same secret never seals to the same text", () => {
    const sealed = new Set(Array.from({ length: 50 }, () => box.seal("same")));
    expect(sealed.size).toBe(50);
  });

  it("refuses to open under another key, with a clear error", () => {
    const other = aesGcmSecretBox(randomBytes(32));
    expect(() => other.open(box.seal("whsec_abc"))).toThrow(
      /tampered with or sealed under another key/,
    );
  });

  it("refuses any changed character that changes the bytes (GCM authenticates all of them)", () => {
    const sealed = box.seal("whsec_a-secret-of-some-length");
    const bytesOf = (text: string) => text.split(".").map((part) => Buffer.from(part, "base64url"));
    fc.assert(
      fc.property(
        fc.nat({ max: sealed.length - 1 }),
        fc.constantFrom(..."AQgw_-9z"),
        (index, char) => {
          const original = sealed[index];
          fc.pre(original !== "." && original !== char);
          const tampered = sealed.slice(0, index) + char + sealed.slice(index + 1);
          const sameBytes = bytesOf(tampered).every((part, i) =>
            part.equals(bytesOf(sealed)[i] ?? Buffer.alloc(0)),
          );
          // Only a change in the unused low bits of a part's last character keeps the bytes.
          if (sameBytes && index > 2) {
            expect(box.open(tampered)).toBe("whsec_a-secret-of-some-length");
          } else {
            expect(() => box.open(tampered)).toThrow(Error);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses text that is not in the sealed format", () => {
    for (const text of ["", "sealed:abc", "v2.a.b.c", "v1.a.b", "v1.a.b.c.d", "v1.!!.b.c"]) {
      expect(() => box.open(text), text).toThrow(Error);
    }
  });

  it("refuses a key that is not 32 bytes", () => {
    expect(() => aesGcmSecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe("parseSecretKey (docs/decisions.md: Configuration, TIDINGS_SECRET_KEY)", () => {
  it("accepts 32 bytes as base64, unpadded base64, base64url or 64 hex characters", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const raw = Buffer.from(bytes);
        for (const text of [
          raw.toString("base64"),
          raw.toString("base64").replace(/=$/, ""),
          raw.toString("base64url"),
          raw.toString("hex"),
          raw.toString("hex").toUpperCase(),
          ` ${raw.toString("base64")}\n`,
        ]) {
          const parsed = parseSecretKey(text);
          expect(parsed.isOk(), text).toBe(true);
          if (parsed.isOk()) expect(parsed.value.equals(raw)).toBe(true);
        }
      }),
    );
  });

  it("refuses other lengths and other text, without echoing the value", () => {
    const tooShort = randomBytes(16).toString("base64");
    for (const text of [
      "",
      "secret",
      tooShort,
      randomBytes(48).toString("base64"),
      "g".repeat(64),
    ]) {
      const parsed = parseSecretKey(text);
      expect(parsed.isErr(), text).toBe(true);
      if (parsed.isErr()) {
        expect(parsed.error).toMatch(/^must be 32 bytes/);
        if (text.length > 0) expect(parsed.error).not.toContain(text);
      }
    }
  });

  it("a generated key parses back to 32 bytes and opens what it sealed", () => {
    const text = generateSecretKey();
    const parsed = parseSecretKey(text);
    expect(parsed.isOk()).toBe(true);
    if (parsed.isErr()) return;
    expect(parsed.value).toHaveLength(32);
    const sealed = aesGcmSecretBox(parsed.value).seal("x");
    expect(aesGcmSecretBox(Buffer.from(text, "base64")).open(sealed)).toBe("x");
    expect(generateSecretKey()).not.toBe(text);
  });
});
