import { err, ok, type ResultAsync } from "neverthrow";
import type { Deps } from "../deps.js";
import type { DomainError, UnauthorizedError } from "../errors.js";
import type { Scope } from "../ports.js";
import { isPrefixedId } from "../support/ids.js";
import { useCase } from "../support/result.js";
import { verifyAgainstDummy, verifyKeySecret } from "./key-secret.js";

/** Who a request is, once its key is verified. */
export interface Principal {
  organizationId: string;
  apiKeyId: string;
  scopes: Scope[];
}

const UNAUTHORIZED: UnauthorizedError = {
  type: "unauthorized",
  code: "unauthorized",
  message: "The API key is missing, invalid or expired.",
};

/**
 * Verifies `Authorization: Bearer <key_id>:<key_secret>`, the scheme in any case. Every failure
 * (missing, malformed, unknown, revoked, expired, wrong secret) is the same 401, and an unknown
 * key costs the same hash work as a known one, so the answer and its timing do not tell which.
 */
export function authenticate(
  deps: Pick<Deps, "storage" | "clock">,
  authorization: string | undefined,
): ResultAsync<Principal, DomainError> {
  return useCase("authenticate", async () => {
    // The scheme is case-insensitive (RFC 9110 §11.1), and one or more spaces may follow it.
    const match = /^bearer +([^:\s]{1,64}):(\S{1,256})$/i.exec(authorization?.trim() ?? "");
    if (!match) return err(UNAUTHORIZED);
    const [, keyId = "", secret = ""] = match;
    const key = isPrefixedId(keyId, "key") ? await deps.storage.apiKeys.get(keyId) : null;
    if (!key) {
      await verifyAgainstDummy(secret);
      return err(UNAUTHORIZED);
    }
    const valid = await verifyKeySecret(secret, key.secretHash);
    const now = deps.clock.now();
    const expired = key.expiresAt !== null && Date.parse(key.expiresAt) <= now;
    if (!valid || key.revokedAt !== null || expired) return err(UNAUTHORIZED);
    return ok({ organizationId: key.organizationId, apiKeyId: key.id, scopes: key.scopes });
  });
}
