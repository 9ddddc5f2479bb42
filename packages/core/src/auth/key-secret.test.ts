import { scryptSync } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DUMMY_HASH,
  hashKeySecret,
  randomSecret,
  verifyAgainstDummy,
  verifyKeySecret,
} from "./key-secret.js";

const FORMAT = /^scrypt\$16384\$8\$1\$([A-Za-z0-9_-]{22})\$([A-Za-z0-9_-]{43})$/;

describe("API key secrets are stored only as scrypt hashes", () => {
  it("randomSecret is base64url of 32 random bytes by default, or of the bytes asked for", () => {
    const secret = randomSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, "base64url")).toHaveLength(32);
    expect(Buffer.from(randomSecret(16), "base64url")).toHaveLength(16);
    expect(randomSecret()).not.toBe(secret);
  });

  it("hashes as scrypt$16384$8$1$<16-byte salt>$<32-byte hash>, equal to scrypt computed independently", async () => {
    const hash = await hashKeySecret("sk_live_abc");
    const match = FORMAT.exec(hash);
    expect(match).not.toBeNull();
    const salt = Buffer.from(match?.[1] ?? "", "base64url");
    expect(salt).toHaveLength(16);
    const expected = scryptSync("sk_live_abc", salt, 32, { N: 16384, r: 8, p: 1 });
    expect(match?.[2]).toBe(expected.toString("base64url"));
  });

  it("salts every hash, so one secret never hashes the same twice", async () => {
    const [a, b] = await Promise.all([hashKeySecret("same"), hashKeySecret("same")]);
    expect(a).not.toBe(b);
  });

  it("verifies the right secret and refuses any other", async () => {
    const hash = await hashKeySecret("sk_live_abc");
    expect(await verifyKeySecret("sk_live_abc", hash)).toBe(true);
    for (const other of ["sk_live_abd", "", "sk_live_abc ", "SK_LIVE_ABC"]) {
      expect(await verifyKeySecret(other, hash), other).toBe(false);
    }
  });

  it("answers false, never throws, for a malformed or hostile stored hash", async () => {
    const good = await hashKeySecret("s");
    const parts = good.split("$");
    const variants = [
      "",
      "plain",
      good.replace("scrypt", "bcrypt"),
      [...parts.slice(0, 5)].join("$"),
      [...parts, "x"].join("$"),
      ["scrypt", "16383", ...parts.slice(2)].join("$"), // N not a power of two
      ["scrypt", "1", ...parts.slice(2)].join("$"),
      ["scrypt", String(2 ** 24), ...parts.slice(2)].join("$"), // would take gigabytes
      ["scrypt", "16384", "0", ...parts.slice(3)].join("$"),
      ["scrypt", "16384", "8", "-1", ...parts.slice(4)].join("$"),
      [...parts.slice(0, 4), "!!!", parts[5]].join("$"),
      [...parts.slice(0, 5), "AA"].join("$"),
    ];
    for (const hash of variants) {
      await expect(verifyKeySecret("s", hash), hash).resolves.toBe(false);
    }
  });

  it("never throws for arbitrary stored text", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (hash) => {
        await expect(verifyKeySecret("s", hash)).resolves.toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it("the dummy hash has the same shape as a real one, so checking it costs the same", async () => {
    expect(DUMMY_HASH).toMatch(FORMAT);
    expect(await verifyAgainstDummy("anything")).toBe(false);
    expect(await verifyKeySecret("anything", DUMMY_HASH)).toBe(false);
  });
});
