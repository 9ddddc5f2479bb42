/**
 * The domain error union. Use cases return these inside neverthrow `Result`s and never throw
 * for an expected failure; only adapter-http turns them into status codes and problem+json.
 * Every variant has a literal `type` and a stable `code` clients can switch on.
 */

/** One problem with the input, located by a JSON path such as `recipient.value` or `params.pin`. */
export interface Issue {
  path: string;
  message: string;
  /** A short machine name of the broken rule, e.g. `max_length`, `no_links`, `required`. */
  rule?: string | undefined;
}

/** The input broke one or more rules; every problem is listed, not just the first. */
export interface ValidationError {
  type: "validation";
  code:
    | "validation_failed"
    | "invalid_cursor"
    | "invalid_params"
    | "campaign_inactive"
    | "text_too_long";
  message: string;
  issues: Issue[];
}

/** The thing does not exist for this organization (unknown, another org's, deleted, malformed). */
export interface NotFoundError {
  type: "not_found";
  code:
    | "profile_not_found"
    | "campaign_not_found"
    | "webhook_not_found"
    | "message_not_found"
    | "contact_list_not_found"
    | "delivery_not_found"
    | "organization_not_found"
    | "api_key_not_found"
    | "suppression_not_found";
  message: string;
  resource: string;
  id: string;
}

/** The request is well formed but clashes with stored state. */
export interface ConflictError {
  type: "conflict";
  code:
    | "phone_number_taken"
    | "profile_protected"
    | "webhook_limit_reached"
    | "webhook_topic_overlap"
    | "webhook_subscription_limit"
    | "idempotency_in_progress"
    | "campaign_active"
    | "delivery_pending"
    | "webhook_deleted"
    | "webhook_inactive"
    | "message_not_scheduled"
    | "sender_taken";
  message: string;
  /** The other records involved, e.g. the conflicting webhooks' ids. */
  conflicts?: ReadonlyArray<{ id: string; reason: string }> | undefined;
  issues?: Issue[] | undefined;
}

/** The caller may not do this to this record. */
export interface ForbiddenError {
  type: "forbidden";
  code:
    | "consent_missing"
    | "missing_scope"
    | "recipient_opted_out"
    | "recipient_country_not_allowed"
    | "recipient_number_type_blocked";
  message: string;
}

/** An email recipient matched more than one active profile. */
export interface AmbiguousError {
  type: "ambiguous";
  code: "ambiguous_recipient";
  message: string;
  matches: number;
}

/** Too many requests for this key in the current window. */
export interface RateLimitedError {
  type: "rate_limited";
  code: "rate_limited" | "destination_rate_limited" | "country_limit_reached";
  message: string;
  retryAfterSeconds: number;
}

/** The same Idempotency-Key came back with a different request. */
export interface IdempotencyMismatchError {
  type: "idempotency_mismatch";
  code: "idempotency_key_reused";
  message: string;
}

/** The credentials do not authenticate; the message never says which part was wrong. */
export interface UnauthorizedError {
  type: "unauthorized";
  code: "unauthorized";
  message: string;
}

/** The request is understood and allowed, but what it asks for cannot be done. */
export interface UnprocessableError {
  type: "unprocessable";
  code: "no_sending_time";
  message: string;
}

export type DomainError =
  | ValidationError
  | NotFoundError
  | ConflictError
  | ForbiddenError
  | AmbiguousError
  | RateLimitedError
  | IdempotencyMismatchError
  | UnauthorizedError
  | UnprocessableError;

export const validationError = (
  issues: Issue[],
  message = "The request is invalid.",
  code: ValidationError["code"] = "validation_failed",
): ValidationError => ({ type: "validation", code, message, issues });

export const notFound = (
  resource: string,
  id: string,
  code: NotFoundError["code"],
): NotFoundError => ({
  type: "not_found",
  code,
  resource,
  id,
  message: `No ${resource} with id ${JSON.stringify(id)} was found.`,
});
