/**
 * What every callback verifier answers (a signature, a token, a signed JWT): verified, or not
 * with the reason, a word for logs and tests, never a secret.
 */
export type Verified<R extends string = string> = { ok: true } | { ok: false; reason: R };

/** The answer of a verifier that passed. */
export const verifiedOk: Verified<never> = { ok: true };
