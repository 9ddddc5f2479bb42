import type { SecretBox } from "../ports.js";

/** How many opened secrets the memo keeps; past it, the memo starts over. */
const MEMO_SIZE = 1024;

/**
 * A `SecretBox` that remembers what it opened, keyed by the sealed text. Safe against rotation:
 * a rotated secret is sealed anew, so its sealed text misses the memo and is opened fresh.
 * Saves an AES-GCM decryption on every webhook attempt to the same destination.
 */
export function memoizedSecretBox(box: SecretBox): SecretBox {
  const opened = new Map<string, string>();
  return {
    seal: (plain) => box.seal(plain),
    open(sealed) {
      const known = opened.get(sealed);
      if (known !== undefined) return known;
      const plain = box.open(sealed);
      if (opened.size >= MEMO_SIZE) opened.clear();
      opened.set(sealed, plain);
      return plain;
    },
  };
}
