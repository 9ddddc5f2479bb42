import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SecretBox } from "../ports.js";
import { aesGcmSecretBox } from "../secrets/secret-box.js";
import { memoizedSecretBox } from "./memoized-secret-box.js";

describe("memoizedSecretBox", () => {
  const counting = () => {
    const inner = aesGcmSecretBox(randomBytes(32));
    let opens = 0;
    const box: SecretBox = {
      seal: (plain) => inner.seal(plain),
      open: (sealed) => {
        opens += 1;
        return inner.open(sealed);
      },
    };
    return { box, opens: () => opens };
  };

  it("opens each sealed secret once, and a rotated (newly sealed) secret fresh", () => {
    const { box, opens } = counting();
    const memo = memoizedSecretBox(box);
    const first = box.seal("whsec_first");
    expect(memo.open(first)).toBe("whsec_first");
    expect(memo.open(first)).toBe("whsec_first");
    expect(opens()).toBe(1);
    const rotated = box.seal("whsec_rotated");
    expect(memo.open(rotated)).toBe("whsec_rotated");
    expect(opens()).toBe(2);
  });

  it("does not remember a secret that fails to open", () => {
    const { box, opens } = counting();
    const memo = memoizedSecretBox(box);
    expect(() => memo.open("not sealed")).toThrow();
    expect(() => memo.open("not sealed")).toThrow();
    expect(opens()).toBe(2);
  });
});
