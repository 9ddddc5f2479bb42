import { createPrivateKey, randomUUID } from "node:crypto";
import { importPKCS8, SignJWT } from "jose";

/**
 * The key as PKCS #8 PEM, which is what Vonage's dashboard downloads and `jose` imports: a key
 * converted to PKCS #1 (`BEGIN RSA PRIVATE KEY`) is converted back; anything else is returned
 * as it is, for the import to refuse.
 */
export function pkcs8Pem(privateKeyPem: string): string {
  if (!privateKeyPem.includes("BEGIN RSA PRIVATE KEY")) return privateKeyPem;
  try {
    return createPrivateKey(privateKeyPem).export({ type: "pkcs8", format: "pem" }).toString();
  } catch {
    return privateKeyPem;
  }
}

/**
 * The Bearer token of a Vonage API request: a JWT signed RS256 with the application's private
 * key, carrying `application_id`, `iat`, a fresh `jti` and a 15-minute `exp`. Vonage sends
 * status webhooks only for messages sent this way, not with basic auth.
 */
export function applicationJwt(
  applicationId: string,
  privateKeyPem: string,
): (nowMs: number) => Promise<string> {
  const key = importPKCS8(pkcs8Pem(privateKeyPem), "RS256");
  // An import that fails is reported by the send that needs the key, not left unhandled.
  key.catch(() => undefined);
  return async (nowMs) => {
    const iat = Math.floor(nowMs / 1000);
    return new SignJWT({ application_id: applicationId })
      .setProtectedHeader({ alg: "RS256", typ: "JWT" })
      .setIssuedAt(iat)
      .setJti(randomUUID())
      .setExpirationTime(iat + 15 * 60)
      .sign(await key);
  };
}
