/** One problem with the input, at its path in the request (`recipient.value`, `topics[1]`). */
export interface TidingsIssue {
  path: string;
  message: string;
}

/** A record the request clashed with, such as another webhook subscribed to the same topic. */
export interface TidingsConflict {
  id: string;
  reason: string;
}

/** The `code` of every problem the server answers; stable, so code may switch on it. */
export type ServerErrorCode =
  | "validation_failed"
  | "invalid_cursor"
  | "invalid_params"
  | "campaign_inactive"
  | "text_too_long"
  | "ambiguous_recipient"
  | "malformed_json"
  | "request_aborted"
  | "unauthorized"
  | "missing_scope"
  | "consent_missing"
  | "recipient_opted_out"
  | "sender_taken"
  | "profile_not_found"
  | "campaign_not_found"
  | "webhook_not_found"
  | "message_not_found"
  | "contact_list_not_found"
  | "delivery_not_found"
  | "organization_not_found"
  | "api_key_not_found"
  | "suppression_not_found"
  | "route_not_found"
  | "method_not_allowed"
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
  | "payload_too_large"
  | "unsupported_media_type"
  | "idempotency_key_reused"
  | "no_sending_time"
  | "rate_limited"
  | "destination_rate_limited"
  | "country_limit_reached"
  | "recipient_country_not_allowed"
  | "recipient_number_type_blocked"
  | "internal_error"
  | "storage_busy"
  | "storage_unavailable"
  | "not_ready";

/**
 * What the client itself reports, with `status` 0 when no answer came: the network failed
 * (`network_error`), no answer came within `timeoutMs` (`timeout`), or an answer was not the
 * JSON the API sends (`unexpected_response`, e.g. a proxy's HTML error page).
 */
export type ClientErrorCode = "network_error" | "timeout" | "unexpected_response";

export type TidingsErrorCode = ServerErrorCode | ClientErrorCode;

interface TidingsErrorInit<C extends string> {
  status: number;
  code: C;
  detail: string;
  issues?: readonly TidingsIssue[] | undefined;
  conflicts?: readonly TidingsConflict[] | undefined;
  requestId?: string | null | undefined;
  retryAfter?: number | null | undefined;
  changed?: false | null | undefined;
  cause?: unknown;
}

/**
 * Every failure of a call: a problem the server answered (its `status`, stable `code`,
 * `detail`, the field `issues` and `conflicts`), or one the client met on the way (status 0).
 * `requestId` is the one to quote in a report; `retryAfter` the seconds the server asked to
 * wait. `TidingsError.is(error, "rate_limited")` narrows `code`.
 */
export class TidingsError<C extends string = TidingsErrorCode | (string & {})> extends Error {
  override readonly name = "TidingsError";
  readonly status: number;
  readonly code: C;
  readonly detail: string;
  readonly issues: readonly TidingsIssue[];
  readonly conflicts: readonly TidingsConflict[];
  readonly requestId: string | null;
  readonly retryAfter: number | null;
  /**
   * `storage_unavailable` only: `false` when the server says the request changed nothing,
   * `null` when it may have taken effect (retry only with the same `Idempotency-Key`);
   * `undefined` on every other error.
   */
  readonly changed: false | null | undefined;

  constructor(init: TidingsErrorInit<C>) {
    super(`${init.status || init.code}: ${init.detail}`, { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.issues = init.issues ?? [];
    this.conflicts = init.conflicts ?? [];
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.changed = init.changed;
  }

  /** Whether `error` is a `TidingsError`, of one of `codes` when any are given. */
  static is<K extends TidingsErrorCode>(error: unknown, ...codes: K[]): error is TidingsError<K> {
    return error instanceof TidingsError && (codes.length === 0 || codes.includes(error.code as K));
  }
}

/**
 * `Retry-After` in whole seconds (RFC 9110 §10.2.3: delay-seconds or an HTTP date), or null
 * when absent or unreadable.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

const listOf = <T>(value: unknown, keys: readonly (keyof T & string)[]): T[] =>
  Array.isArray(value)
    ? value.filter((item): item is T => isObject(item) && keys.every((key) => key in item))
    : [];

/** The error an answer other than 2xx stands for: its problem document, or what is known. */
export function errorOfResponse(response: Response, text: string): TidingsError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const header = response.headers.get("x-request-id");
  const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
  if (isObject(body) && typeof body.code === "string") {
    return new TidingsError({
      status: response.status,
      code: body.code,
      detail: typeof body.detail === "string" ? body.detail : response.statusText,
      issues: listOf<TidingsIssue>(body.errors, ["path", "message"]),
      conflicts: listOf<TidingsConflict>(body.conflicts, ["id", "reason"]),
      requestId: typeof body.request_id === "string" ? body.request_id : header,
      retryAfter,
      changed: body.changed === false ? false : body.changed === null ? null : undefined,
    });
  }
  return new TidingsError({
    status: response.status,
    code: "unexpected_response",
    detail: `HTTP ${response.status} without a problem document${text ? `: ${text.slice(0, 200)}` : ""}`,
    requestId: header,
    retryAfter,
  });
}
