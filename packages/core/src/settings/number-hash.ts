import { createHmac, randomBytes } from "node:crypto";

/**
 * The one keyed hash of a phone number (or of a number's prefix) that Tidings stores instead of
 * the number: HMAC-SHA256 under `key` (derived from the secret key by the server), with the
 * organization in the message, so two organizations' hashes of one number differ. Without a
 * key, a random one of this process: counts then hold in this process only.
 */
export function numberHash(
  key: Uint8Array | undefined,
  organizationId: string,
  value: string,
): string {
  return createHmac("sha256", key ?? processKey())
    .update(`${organizationId}\u0000${value}`)
    .digest("base64url")
    .slice(0, 27);
}

let fallback: Buffer | undefined;
const processKey = (): Buffer => {
  fallback ??= randomBytes(32);
  return fallback;
};
