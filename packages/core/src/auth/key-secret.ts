import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** scrypt cost parameters of new hashes (OWASP's minimum for scrypt: N=2^14, r=8, p=1). */
export const SCRYPT_N = 16_384;
export const SCRYPT_R = 8;
export const SCRYPT_P = 1;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

// Bounds on parameters read back from a stored hash, so a corrupt row cannot make one
// verification allocate gigabytes or spin for minutes.
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A random secret of `bytes` bytes (32 by default), base64url without padding. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** Hashes an API key secret as `scrypt$16384$8$1$<salt b64url>$<hash b64url>`. */
export async function hashKeySecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(secret, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, HASH_BYTES);
  return [
    "scrypt",
    SCRYPT_N,
    SCRYPT_R,
    SCRYPT_P,
    salt.toString("base64url"),
    hash.toString("base64url"),
  ].join("$");
}

/**
 * Whether `secret` matches a hash made by `hashKeySecret`, compared in constant time. A
 * malformed hash answers `false`; this never rejects.
 */
export async function verifyKeySecret(secret: string, hash: string): Promise<boolean> {
  const parsed = parseHash(hash);
  if (parsed === null) return false;
  try {
    const actual = await derive(
      secret,
      parsed.salt,
      parsed.n,
      parsed.r,
      parsed.p,
      parsed.hash.length,
    );
    return timingSafeEqual(actual, parsed.hash);
  } catch {
    return false;
  }
}

/**
 * A well-formed hash of a secret nobody holds (its salt and hash are fixed random bytes), for
 * spending a verification's time on an unknown key id.
 */
export const DUMMY_HASH =
  "scrypt$16384$8$1$5oTZw3XQmzJ5M1Wg3p2C6A$8e2QbT0hq3mF5L3yUq8cB2a4tQ1vK9xR0sW7nZ6pY4E";

/**
 * Spends the time of one verification and answers `false`, so an unknown key id takes as long
 * to refuse as a wrong secret for a known one.
 */
export async function verifyAgainstDummy(secret: string): Promise<false> {
  await verifyKeySecret(secret, DUMMY_HASH);
  return false;
}

interface ParsedHash {
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function parseHash(text: string): ParsedHash | null {
  const parts = text.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [, nText, rText, pText, saltText, hashText] = parts;
  const n = positiveInteger(nText);
  const r = positiveInteger(rText);
  const p = positiveInteger(pText);
  if (n === null || r === null || p === null) return null;
  // scrypt needs N to be a power of two greater than 1.
  if (n < 2 || n > MAX_N || (n & (n - 1)) !== 0 || r > MAX_R || p > MAX_P) return null;
  if (!BASE64URL.test(saltText ?? "") || !BASE64URL.test(hashText ?? "")) return null;
  const salt = Buffer.from(saltText ?? "", "base64url");
  const hash = Buffer.from(hashText ?? "", "base64url");
  if (salt.length < 8 || hash.length < 16 || hash.length > 64) return null;
  return { n, r, p, salt, hash };
}

const positiveInteger = (text: string | undefined): number | null =>
  text !== undefined && /^[1-9]\d{0,7}$/.test(text) ? Number(text) : null;

function derive(
  secret: string,
  salt: Buffer,
  n: number,
  r: number,
  p: number,
  length: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // scrypt needs about 128 × N × r bytes; the default 32 MiB ceiling is too low past N=2^17.
    const maxmem = 256 * n * r + 1024 * 1024;
    scrypt(secret, salt, length, { N: n, r, p, maxmem }, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}
