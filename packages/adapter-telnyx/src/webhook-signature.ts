import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { type Verified, verifyTimestamped } from "@tidings/core";

/** Why a webhook was refused. */
export type TelnyxSignatureVerdict = Verified<"unsigned" | "stale" | "bad_signature">;

/**
 * The account's public key from its base64 text (the raw 32-byte Ed25519 key Mission Control
 * shows); `null` when it is not one.
 */
export function telnyxPublicKey(base64: string): KeyObject | null {
  const raw = Buffer.from(base64, "base64");
  if (raw.length !== 32 || raw.toString("base64") !== base64.replace(/\s/g, "")) return null;
  try {
    return createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") },
      format: "jwk",
    });
  } catch {
    return null;
  }
}

/**
 * Verifies a Telnyx webhook: `telnyx-signature-ed25519` is the base64 Ed25519 signature of
 * `{telnyx-timestamp}|{raw body}` under the account's key, and the timestamp (whole Unix
 * seconds) is within `toleranceSeconds` (default 300) of now. Never throws.
 */
export function verifyTelnyxWebhook(
  headers: { signature: string | null; timestamp: string | null },
  body: Uint8Array | string,
  options: { publicKey: KeyObject; nowMs: number; toleranceSeconds?: number | undefined },
): TelnyxSignatureVerdict {
  return verifyTimestamped(
    headers,
    options.nowMs,
    (signature, timestamp) => {
      const bytes = Buffer.from(signature, "base64");
      const signed = Buffer.concat([Buffer.from(`${timestamp}|`), Buffer.from(body)]);
      return bytes.length === 64 && verify(null, signed, options.publicKey, bytes);
    },
    options.toleranceSeconds,
  );
}
