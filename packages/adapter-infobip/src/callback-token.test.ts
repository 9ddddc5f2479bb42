import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  callbackKey,
  checkLegToken,
  legSegment,
  legToken,
  splitLegSegment,
} from "./callback-token.js";

const key = callbackKey(new Uint8Array(32).fill(3));

describe("the per-leg callback token", () => {
  it("verifies its own leg only; 22 base64url characters; split back from the path segment", () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.boolean(),
        fc.string({ minLength: 22, maxLength: 22 }),
        (id, sms, guess) => {
          const legId = sms ? `${id}.sms` : id;
          const token = legToken(key, legId);
          expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
          expect(checkLegToken(key, legId, token).ok).toBe(true);
          expect(splitLegSegment(legSegment(key, legId))).toEqual({ legId, token });
          expect(checkLegToken(key, sms ? id : `${id}.sms`, token).ok).toBe(false);
          if (guess !== token) expect(checkLegToken(key, legId, guess).ok).toBe(false);
        },
      ),
    );
  });

  it("another secret key makes other tokens", () => {
    const other = callbackKey(new Uint8Array(32).fill(4));
    expect(legToken(other, "m")).not.toBe(legToken(key, "m"));
  });
});
