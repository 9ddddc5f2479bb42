import { err, ok, type Result } from "neverthrow";
import type { ForbiddenError } from "../errors.js";
import type { Scope } from "../ports.js";

export const SCOPES: readonly Scope[] = [
  "profiles:read",
  "profiles:write",
  "messages:send",
  "webhooks:manage",
];

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
