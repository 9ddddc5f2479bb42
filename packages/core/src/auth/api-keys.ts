import { err, ok, type ResultAsync } from "neverthrow";
import * as v from "valibot";
import type { Deps } from "../deps.js";
import { type DomainError, notFound, validationError } from "../errors.js";
import { cancelScheduledOfKey } from "../messages/scheduled-messages.js";
import type { ApiKeyRecord, Scope } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { parseInput, strictFields } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { hashKeySecret, randomSecret } from "./key-secret.js";
import { SCOPES } from "./scopes.js";

/** The longest key name, in characters. */
export const MAX_KEY_NAME_LENGTH = 100;

const createApiKeyInput = strictFields(
  {
    organization_id: v.string(),
    name: v.optional(
      v.nullable(
        v.pipe(
          v.string(),
          v.trim(),
          v.maxLength(MAX_KEY_NAME_LENGTH, `must be at most ${MAX_KEY_NAME_LENGTH} characters.`),
        ),
      ),
    ),
    scopes: v.pipe(
      v.array(v.picklist(SCOPES, `must be one of ${SCOPES.join(", ")}.`)),
      v.minLength(1, "must name at least one scope."),
    ),
    expires_at: v.optional(
      v.nullable(v.pipe(v.string(), v.isoTimestamp("must be an ISO 8601 timestamp."))),
    ),
  },
  "must be an object.",
);

/** A new key as answered once: the secret and the webhook signing secret are never shown again. */
export interface CreatedApiKey {
  key_id: string;
  name: string | null;
  key_secret: string;
  token: string;
  webhook_signing_secret: string;
  scopes: Scope[];
  expires_at: string | null;
}

/** A stored key without its secrets. */
export interface ApiKeyView {
  key_id: string;
  name: string | null;
  organization_id: string;
  scopes: Scope[];
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

export const toApiKeyView = (key: ApiKeyRecord): ApiKeyView => ({
  key_id: key.id,
  name: key.name,
  organization_id: key.organizationId,
  scopes: key.scopes,
  expires_at: key.expiresAt,
  revoked_at: key.revokedAt,
  created_at: key.createdAt,
});

/** Creates an API key for an organization (CLI). The secret is stored only as a hash. */
export function createApiKey(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox">,
  input: unknown,
): ResultAsync<CreatedApiKey, DomainError> {
  return useCase("createApiKey", async () => {
    const parsed = parseInput(createApiKeyInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const { organization_id, scopes, expires_at } = parsed.value;
    const name = parsed.value.name ? parsed.value.name : null;
    if (!(await deps.storage.organizations.get(organization_id))) {
      return err(notFound("organization", organization_id, "organization_not_found"));
    }
    const now = deps.clock.now();
    const expiresAt = expires_at ? isoAt(Date.parse(expires_at)) : null;
    if (expiresAt !== null && Date.parse(expiresAt) <= now) {
      return err(validationError([{ path: "expires_at", message: "must be in the future." }]));
    }
    const keySecret = randomSecret(32);
    const webhookSigningSecret = `whsec_${randomSecret(32)}`;
    const uniqueScopes = [...new Set(scopes)];
    const key: ApiKeyRecord = {
      id: deps.ids.prefixed("key"),
      organizationId: organization_id,
      name,
      secretHash: await hashKeySecret(keySecret),
      webhookSigningSecretSealed: deps.secretBox.seal(webhookSigningSecret),
      scopes: uniqueScopes,
      expiresAt,
      revokedAt: null,
      createdAt: isoAt(now),
    };
    await deps.storage.apiKeys.insert(key);
    return ok({
      key_id: key.id,
      name,
      key_secret: keySecret,
      token: `${key.id}:${keySecret}`,
      webhook_signing_secret: webhookSigningSecret,
      scopes: uniqueScopes,
      expires_at: expiresAt,
    });
  });
}

/** The organization's keys, without secrets. */
export function listApiKeys(
  deps: Pick<Deps, "storage">,
  organizationId: string,
): ResultAsync<ApiKeyView[], DomainError> {
  return useCase("listApiKeys", async () =>
    ok((await deps.storage.apiKeys.list(organizationId)).map(toApiKeyView)),
  );
}

/** Revokes a key at once: requests made with it stop being accepted. */
export function revokeApiKey(
  deps: Pick<Deps, "storage" | "clock" | "ids">,
  keyId: string,
): ResultAsync<ApiKeyView, DomainError> {
  return useCase("revokeApiKey", async () => {
    const key = await deps.storage.apiKeys.get(keyId);
    if (!key) return err(notFound("api key", keyId, "api_key_not_found"));
    if (key.revokedAt !== null) return ok(toApiKeyView(key));
    const at = isoAt(deps.clock.now());
    await deps.storage.apiKeys.revoke(keyId, at);
    // What the key scheduled and has not gone out goes no further.
    await deps.storage.transaction((tx) =>
      cancelScheduledOfKey(tx, deps, key.organizationId, keyId),
    );
    // A copy: the record read may be one kept in memory (and frozen) for other requests.
    return ok(toApiKeyView({ ...key, revokedAt: at }));
  });
}
