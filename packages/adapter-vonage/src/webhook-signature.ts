import { createHash, timingSafeEqual } from "node:crypto";
import { type Verified, verifiedOk } from "@tidings/core";
import { jwtVerify } from "jose";

/** Why a signed webhook was refused, or that it carried no signature at all. */
export type VonageSignatureVerdict = Verified<
  "unsigned" | "bad_token" | "wrong_api_key" | "stale" | "body_changed"
>;

export interface VonageSignatureOptions {
  /** The account's signature secret (HS256 key). */
  signatureSecret: string;
  /** The account's API key, when known: the `api_key` claim must equal it. */
  apiKey?: string | undefined;
  /** Now, in ms. */
  nowMs: number;
  /** How far `iat` may be from now, in seconds (default 300). */
  toleranceSeconds?: number | undefined;
}

const sameHex = (a: string, b: string): boolean => {
  const left = Buffer.from(a.toLowerCase());
  const right = Buffer.from(b.toLowerCase());
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * Verifies a Vonage signed webhook: `Authorization: Bearer <JWT>`, the algorithm pinned to
 * HS256 with the signature secret, an `api_key` claim (the account's, when given), `iat` within
 * the tolerance of now, and `payload_hash`, the hex SHA-256 of the body, equal to the body's.
 * Raw bytes in, a verdict out; never throws.
 */
export async function verifyVonageWebhook(
  authorization: string | null,
  body: Uint8Array | string,
  options: VonageSignatureOptions,
): Promise<VonageSignatureVerdict> {
  if (authorization === null) return { ok: false, reason: "unsigned" };
  const token = /^Bearer\s+(\S+)$/i.exec(authorization.trim())?.[1];
  if (token === undefined) return { ok: false, reason: "bad_token" };
  let claims: Record<string, unknown>;
  try {
    const verified = await jwtVerify(token, new TextEncoder().encode(options.signatureSecret), {
      algorithms: ["HS256"],
      currentDate: new Date(options.nowMs),
    });
    claims = verified.payload;
  } catch {
    return { ok: false, reason: "bad_token" };
  }
  const apiKey = claims.api_key;
  if (typeof apiKey !== "string" || (options.apiKey !== undefined && apiKey !== options.apiKey)) {
    return { ok: false, reason: "wrong_api_key" };
  }
  const tolerance = options.toleranceSeconds ?? 300;
  if (typeof claims.iat !== "number" || Math.abs(options.nowMs / 1000 - claims.iat) > tolerance) {
    return { ok: false, reason: "stale" };
  }
  const hash = createHash("sha256").update(body).digest("hex");
  if (typeof claims.payload_hash !== "string" || !sameHex(claims.payload_hash, hash)) {
    return { ok: false, reason: "body_changed" };
  }
  return verifiedOk;
}
