import { err, ok, type Result } from "neverthrow";
import type { ForbiddenError } from "../errors.js";
import type { Scope } from "../ports.js";

/** Every scope a key can hold; no key has one unless it was given it. */
export const SCOPES: readonly Scope[] = [
  "profiles:read",
  "profiles:write",
  "messages:send",
  "messages:read",
  "webhooks:manage",
  "campaigns:manage",
  "settings:manage",
];

/** What each scope grants, for `keys create --help` and the documentation. */
export const SCOPE_GRANTS: Readonly<Record<Scope, string>> = {
  "profiles:read": "read profiles",
  "profiles:write": "create, change and delete profiles",
  "messages:send": "send messages",
  "messages:read": "read messages and their lifecycle events",
  "webhooks:manage": "manage webhook subscriptions and the delivery log, redeliver",
  "campaigns:manage": "create, change, activate and deactivate campaigns",
  "settings:manage": "read and change the organization's settings (allowed countries, send limits)",
};

export const isScope = (value: string): value is Scope =>
  (SCOPES as readonly string[]).includes(value);

/** Ok when the key has the scope, else a 403 naming it. */
export function requireScope(scopes: readonly Scope[], scope: Scope): Result<void, ForbiddenError> {
  if (scopes.includes(scope)) return ok(undefined);
  return err({
    type: "forbidden",
    code: "missing_scope",
    message: `The API key lacks the scope ${scope}.`,
  });
}
