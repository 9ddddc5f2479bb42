import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DUMMY_HASH,
  hashKeySecret,
  randomSecret,
  verifyAgainstDummy,
  verifyKeySecret,
} from "./key-secret.js";

describe("API key secrets (stored only as hashes)", () => {
  it("randomSecret is base64url of 32 random bytes by default, or of the bytes asked for", () => {
    expect(Buffer.from(randomSecret(), "base64url")).toHaveLength(32);
    expect(Buffer.from(randomSecret(16), "base64url")).toHaveLength(16);
    expect(randomSecret()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomSecret()).not.toBe(randomSecret());
  });

  it("hashes as sha256$<digest>, equal to SHA-256 computed independently", async () => {
    const secret = randomSecret();
    const expected = createHash("sha256").update(secret).digest("base64url");
    expect(await hashKeySecret(secret)).toBe(`sha256$${expected}`);
  });

  it("verifies the right secret and refuses any other", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), async (secret, other) => {
        const hash = await hashKeySecret(secret);
        expect(await verifyKeySecret(secret, hash)).toBe(true);
        if (other !== secret) expect(await verifyKeySecret(other, hash)).toBe(false);
      }),
    );
  });

  it("answers false, never throws, for a malformed stored hash", async () => {
    const good = await hashKeySecret("s");
    for (const hash of [
      "",
      "sha256$",
      good.slice(0, -1),
      `${good}A`,
      good.replace("sha256", "md5"),
      "scrypt$16384$8$1$a$b",
    ]) {
      expect(await verifyKeySecret("s", hash)).toBe(false);
    }
    await fc.assert(
      fc.asyncProperty(fc.string(), async (hash) => {
        expect(await verifyKeySecret("s", hash)).toBe(false);
      }),
    );
  });

  it("the dummy hash has the shape of a real one, so refusing an unknown key costs the same", async () => {
    expect(DUMMY_HASH).toMatch(/^sha256\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyAgainstDummy(randomSecret())).toBe(false);
  });
});
