import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { type Verified, verifiedOk } from "@tidings/core";

/** Characters of the token: 22 base64url characters carry 132 bits. */
const TOKEN_LENGTH = 22;

/**
 * The key of the callback tokens, derived from the server's secret key by HKDF-SHA256 (info
 * `"tidings infobip callbacks"`), so it is never the key that seals secrets at rest.
 */
export const callbackKey = (secretKey: Uint8Array): Buffer =>
  Buffer.from(hkdfSync("sha256", secretKey, new Uint8Array(0), "tidings infobip callbacks", 32));

/**
 * The token in a leg's callback URLs: Infobip does not sign per-message callbacks, so each leg's
 * URLs carry their own, the first 22 base64url characters of HMAC-SHA256(key, leg id).
 */
export const legToken = (key: Uint8Array, legId: string): string =>
  createHmac("sha256", key).update(legId, "utf8").digest("base64url").slice(0, TOKEN_LENGTH);

/** Whether `token` is the leg's, compared in constant time. */
export function checkLegToken(
  key: Uint8Array,
  legId: string,
  token: string,
): Verified<"token_mismatch"> {
  const expected = Buffer.from(legToken(key, legId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected)
    ? verifiedOk
    : { ok: false, reason: "token_mismatch" };
}

/** The path segment naming a leg and carrying its token: `{legId}.{token}`. */
export const legSegment = (key: Uint8Array, legId: string): string =>
  `${legId}.${legToken(key, legId)}`;

/** The leg id and token of a path segment, or `null` when it has no token. */
export function splitLegSegment(segment: string): { legId: string; token: string } | null {
  const dot = segment.lastIndexOf(".");
  if (dot <= 0 || segment.length - dot - 1 !== TOKEN_LENGTH) return null;
  return { legId: segment.slice(0, dot), token: segment.slice(dot + 1) };
}
