/**
 * What every callback verifier answers (a signature, a token, a signed JWT): verified, or not
 * with the reason, a word for logs and tests, never a secret.
 */
export type Verified<R extends string = string> = { ok: true } | { ok: false; reason: R };

/** The answer of a verifier that passed. */
export const verifiedOk: Verified<never> = { ok: true };

/**
 * Verifies a timestamped signature, as several providers sign webhooks: unsigned when either
 * header is missing; stale when the timestamp (whole Unix seconds) is no number or further than
 * `toleranceSeconds` (default 300) from now; else `check` decides (a throw is a bad signature).
 * Never throws.
 */
export function verifyTimestamped(
  headers: { signature: string | null; timestamp: string | null },
  nowMs: number,
  check: (signature: string, timestamp: string) => boolean,
  toleranceSeconds = 300,
): Verified<"unsigned" | "stale" | "bad_signature"> {
  const { signature, timestamp } = headers;
  if (signature === null || timestamp === null) return { ok: false, reason: "unsigned" };
  const seconds = /^[0-9]{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (!(Math.abs(nowMs / 1000 - seconds) <= toleranceSeconds)) {
    return { ok: false, reason: "stale" };
  }
  try {
    return check(signature, timestamp) ? verifiedOk : { ok: false, reason: "bad_signature" };
  } catch {
    return { ok: false, reason: "bad_signature" };
  }
}
