import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** The length of a link code: 62^12 ≈ 3.2 × 10^21 codes, so guessing one is hopeless. */
export const LINK_CODE_LENGTH = 12;
/** Bytes at or above this are dropped, so each character is uniform (248 = 4 × 62). */
const UNBIASED_BELOW = 248;

const LINK_CODE = /^[0-9A-Za-z]{12}$/;

/** Whether `text` has the shape of a link code; anything else is unknown without a lookup. */
export const isLinkCode = (text: string): boolean => LINK_CODE.test(text);

/** A new link code: 12 base62 characters from the system's CSPRNG, without modulo bias. */
export function newLinkCode(): string {
  let code = "";
  while (code.length < LINK_CODE_LENGTH) {
    for (const byte of randomBytes(16)) {
      if (byte >= UNBIASED_BELOW) continue;
      code += BASE62.charAt(byte % 62);
      if (code.length === LINK_CODE_LENGTH) break;
    }
  }
  return code;
}
