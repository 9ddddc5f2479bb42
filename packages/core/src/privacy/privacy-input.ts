import { err, ok, type Result } from "neverthrow";
import { type Issue, type ValidationError, validationError } from "../errors.js";
import { normalizePhone } from "../profiles/phone.js";

/** Who a request by number or address is about. */
export type PersonMatch = { phoneNumber: string } | { email: string };

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * `{ phone_number }` or `{ email }`, exactly one, as a body (`POST /v1/privacy/erase`) or a
 * query (`GET /v1/privacy/export`) gives them: the number normalized to E.164, the address
 * trimmed (matched case-insensitively). Every problem is named by its field.
 */
export function personMatchInput(input: unknown): Result<PersonMatch, ValidationError> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return err(
      validationError([{ path: "body", message: "must be a JSON object.", rule: "type" }]),
    );
  }
  const fields = input as Record<string, unknown>;
  const issues: Issue[] = [];
  for (const key of Object.keys(fields)) {
    if (key !== "phone_number" && key !== "email") {
      issues.push({ path: key, message: "is not a known field.", rule: "unknown" });
    }
  }
  const phone = fields.phone_number;
  const email = fields.email;
  if (phone === undefined && email === undefined) {
    issues.push({
      path: "phone_number",
      message: "is required unless email is given (one of phone_number or email).",
      rule: "required",
    });
  }
  if (phone !== undefined && email !== undefined) {
    issues.push({
      path: "email",
      message: "cannot be given with phone_number; ask about one of them at a time.",
      rule: "exclusive",
    });
  }
  let match: PersonMatch | null = null;
  if (phone !== undefined) {
    if (typeof phone !== "string") {
      issues.push({ path: "phone_number", message: "must be a string.", rule: "type" });
    } else {
      const normalized = normalizePhone(phone);
      if (normalized.isErr()) {
        issues.push({ path: "phone_number", message: normalized.error, rule: "phone" });
      } else match = { phoneNumber: normalized.value };
    }
  } else if (email !== undefined) {
    const trimmed = typeof email === "string" ? email.trim() : null;
    if (trimmed === null || trimmed.length > 254 || !EMAIL.test(trimmed)) {
      issues.push({ path: "email", message: "must be a valid email address.", rule: "email" });
    } else match = { email: trimmed };
  }
  if (issues.length > 0 || match === null) return err(validationError(issues));
  return ok(match);
}
