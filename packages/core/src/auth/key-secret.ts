import { hash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * API key secrets are 256 random bits, so a fast digest is as safe as a slow password hash
 * (there is nothing to guess) and keeps authentication off the request's critical path; a
 * scrypt per request would cap the whole API at a few dozen requests per second per core.
 * This is how GitHub and Stripe store tokens. Stored as `sha256$<digest b64url>`.
 */
const PREFIX = "sha256$";
const DIGEST = /^sha256\$[A-Za-z0-9_-]{43}$/;

/** A random secret of `bytes` bytes (32 by default), base64url without padding. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

// The one-shot `hash` costs about half of a `createHash` object per call; it runs on every request.
const digest = (secret: string): Buffer => hash("sha256", secret, "buffer");

/** Hashes an API key secret as `sha256$<digest b64url>`. */
export async function hashKeySecret(secret: string): Promise<string> {
  return `${PREFIX}${digest(secret).toString("base64url")}`;
}

/**
 * Whether `secret` matches a hash made by `hashKeySecret`, compared in constant time. A
 * malformed hash answers `false`; this never rejects.
 */
export async function verifyKeySecret(secret: string, stored: string): Promise<boolean> {
  if (!DIGEST.test(stored)) return false;
  const expected = Buffer.from(stored.slice(PREFIX.length), "base64url");
  return timingSafeEqual(digest(secret), expected);
}

/** A well-formed hash of a secret nobody holds, for spending a verification on an unknown key id. */
export const DUMMY_HASH = `${PREFIX}${digest(randomSecret(32)).toString("base64url")}`;

/**
 * Spends the time of one verification and answers `false`, so an unknown key id takes as long
 * to refuse as a wrong secret for a known one.
 */
export async function verifyAgainstDummy(secret: string): Promise<false> {
  await verifyKeySecret(secret, DUMMY_HASH);
  return false;
}
