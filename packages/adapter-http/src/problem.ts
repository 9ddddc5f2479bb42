import {
  type DomainError,
  type Issue,
  StorageBusyError,
  type StorageFaultOutcome,
} from "@tidings/core";
import type { HttpResponse } from "./types.js";

/** Where every problem `type` URI points; `<base><code>` names one kind of problem. */
export const PROBLEM_TYPE_BASE = "https://tidings.dev/problems/";

/** An RFC 9457 problem document as Tidings answers it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors?: Array<{ path: string; message: string }> | undefined;
  conflicts?: Array<{ id: string; reason: string }> | undefined;
  /** `storage_unavailable` only: `false` when nothing was changed, `null` when unknown. */
  changed?: false | null | undefined;
}

/** What an answer other than the happy one is made of, before the request id is known. */
export interface ProblemSpec {
  status: number;
  code: string;
  detail: string;
  title?: string | undefined;
  issues?: readonly Issue[] | undefined;
  conflicts?: ReadonlyArray<{ id: string; reason: string }> | undefined;
  changed?: false | null | undefined;
  headers?: Record<string, string> | undefined;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

const STATUS_OF: Record<DomainError["type"], number> = {
  validation: 400,
  ambiguous: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  idempotency_mismatch: 422,
  unprocessable: 422,
  rate_limited: 429,
};

/** The status code of a domain error: the one place where the domain meets HTTP. */
export const statusOf = (error: DomainError): number => STATUS_OF[error.type];

/** A domain error as a problem: its status, its stable code, its issues and conflicts. */
export function domainProblem(error: DomainError): ProblemSpec {
  const spec: ProblemSpec = { status: statusOf(error), code: error.code, detail: error.message };
  switch (error.type) {
    case "validation":
      return { ...spec, issues: error.issues };
    case "conflict":
      return { ...spec, issues: error.issues, conflicts: error.conflicts };
    case "rate_limited":
      return { ...spec, headers: { "retry-after": String(error.retryAfterSeconds) } };
    default:
      return spec;
  }
}

/** Renders a problem as an `application/problem+json` response carrying the request id. */
export function problemResponse(spec: ProblemSpec, requestId: string): HttpResponse {
  const problem: Problem = {
    type: `${PROBLEM_TYPE_BASE}${spec.code}`,
    title: spec.title ?? TITLES[spec.status] ?? "Error",
    status: spec.status,
    detail: spec.detail,
    code: spec.code,
    request_id: requestId,
  };
  if (spec.issues && spec.issues.length > 0) {
    problem.errors = spec.issues.map((issue) => ({ path: issue.path, message: issue.message }));
  }
  if (spec.conflicts && spec.conflicts.length > 0) {
    problem.conflicts = spec.conflicts.map((c) => ({ id: c.id, reason: c.reason }));
  }
  if (spec.changed !== undefined) problem.changed = spec.changed;
  return {
    status: spec.status,
    headers: {
      "content-type": "application/problem+json",
      "x-request-id": requestId,
      ...spec.headers,
    },
    body: JSON.stringify(problem),
  };
}

const UNSTORABLE = {
  nul: "must not contain the NUL character (U+0000).",
  surrogate:
    "must not contain a lone UTF-16 surrogate (a \\ud800-\\udfff escape without its pair).",
};

/** Problems raised by the HTTP edge itself, before any use case runs. */
export const edgeProblems = {
  unauthorized: (): ProblemSpec => ({
    status: 401,
    code: "unauthorized",
    detail: "The API key is missing, invalid or expired.",
    headers: { "www-authenticate": 'Bearer realm="tidings"' },
  }),
  routeNotFound: (path: string): ProblemSpec => ({
    status: 404,
    code: "route_not_found",
    detail: `No endpoint answers ${truncate(path)}.`,
  }),
  methodNotAllowed: (method: string, allow: readonly string[]): ProblemSpec => ({
    status: 405,
    code: "method_not_allowed",
    detail: `This endpoint does not answer ${truncate(method)}; it answers ${allow.join(", ")}.`,
    headers: { allow: allow.join(", ") },
  }),
  unsupportedMediaType: (): ProblemSpec => ({
    status: 415,
    code: "unsupported_media_type",
    detail: "A request body must be sent as Content-Type: application/json (UTF-8).",
  }),
  malformedJson: (reason: string): ProblemSpec => ({
    status: 400,
    code: "malformed_json",
    detail: `The request body is not valid JSON: ${reason}`,
  }),
  nulCharacter: (path: string): ProblemSpec => edgeProblems.unstorableText(path, "nul"),
  unstorableText: (path: string, what: "nul" | "surrogate"): ProblemSpec => ({
    status: 400,
    code: "validation_failed",
    detail: "The request is invalid.",
    issues: [{ path, message: UNSTORABLE[what] }],
  }),
  payloadTooLarge: (maxBytes: number): ProblemSpec => ({
    status: 413,
    code: "payload_too_large",
    detail: `The request body exceeds ${maxBytes} bytes.`,
  }),
  requestAborted: (): ProblemSpec => ({
    status: 400,
    code: "request_aborted",
    detail: "The request body was cut off before its end; nothing was done.",
  }),
  internal: (): ProblemSpec => ({
    status: 500,
    code: "internal_error",
    detail: "Something went wrong on our side. Quote the request id when reporting it.",
  }),
  storageBusy: (): ProblemSpec => ({
    status: 503,
    code: "storage_busy",
    detail:
      "The database is locked by another process (an import, say); nothing was changed. Retry shortly.",
    headers: { "retry-after": "1" },
  }),
  /**
   * Storage is out of reach, full or read-only. A read changed nothing whatever happened; a
   * write says whether it did, and when it may have, that only the same `Idempotency-Key`
   * makes a retry safe.
   */
  storageUnavailable: (outcome: StorageFaultOutcome, write: boolean): ProblemSpec => ({
    status: 503,
    code: "storage_unavailable",
    changed: outcome === "unchanged" || !write ? false : null,
    detail:
      outcome === "unchanged" || !write
        ? "The database is unavailable for now; nothing was changed. Retry shortly."
        : "The database became unavailable while the request ran, so it may or may not have taken effect. A retry is safe only with the same Idempotency-Key.",
    headers: { "retry-after": "1" },
  }),
  notReady: (): ProblemSpec => ({
    status: 503,
    code: "not_ready",
    detail: "The service cannot reach its storage.",
    headers: { "retry-after": "1" },
  }),
};

/** Echoing client input in a message, bounded so a huge path cannot bloat the answer. */
const truncate = (text: string): string =>
  JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** A `StorageBusyError`, also one thrown by another copy of @tidings/core. */
export const isStorageBusy = (error: unknown): boolean =>
  error instanceof StorageBusyError ||
  (error instanceof Error && error.name === "StorageBusyError");
