import { randomUUID } from "node:crypto";
import { importPKCS8, SignJWT } from "jose";

/**
 * The Bearer token of a Vonage API request: a JWT signed RS256 with the application's private
 * key, carrying `application_id`, `iat`, a fresh `jti` and a 15-minute `exp`. Vonage sends
 * status webhooks only for messages sent this way, not with basic auth.
 */
export function applicationJwt(
  applicationId: string,
  privateKeyPem: string,
): (nowMs: number) => Promise<string> {
  const key = importPKCS8(privateKeyPem, "RS256");
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
