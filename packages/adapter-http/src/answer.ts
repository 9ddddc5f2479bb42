import type { DomainError, StoredResponse } from "@tidings/core";
import { domainProblem, type ProblemSpec, problemResponse } from "./problem.js";
import type { HttpResponse } from "./types.js";

/** What a route answers, before the request id and the rendering are added. */
export type Answer =
  | { kind: "json"; status: number; body: unknown; headers?: Record<string, string> | undefined }
  | { kind: "empty"; status: number; headers?: Record<string, string> | undefined }
  | { kind: "problem"; problem: ProblemSpec }
  /** An answer already rendered once, replayed as stored (idempotency). */
  | { kind: "stored"; status: number; headers: Record<string, string>; body: string };

/** A JSON answer. */
export const json = (status: number, body: unknown): Answer => ({ kind: "json", status, body });

/** A problem answer. */
export const problem = (spec: ProblemSpec): Answer => ({ kind: "problem", problem: spec });

/**
 * A use case's neverthrow `Result`, seen structurally: this package does not depend on
 * neverthrow itself, only on what the core's results can do.
 */
export interface UseCaseResult<T> {
  match<A, B = A>(ok: (value: T) => A, err: (error: DomainError) => B): A | B;
}

/** A use case's result as an answer: its value with `status`, or its error as a problem. */
export function fromResult<T>(result: UseCaseResult<T>, status = 200): Answer {
  return result.match<Answer>(
    (value) => (status === 204 ? { kind: "empty", status } : json(status, value)),
    (error) => problem(domainProblem(error)),
  );
}

/** Adds headers to an answer (a problem keeps them too). */
export function withHeaders(answer: Answer, headers: Record<string, string>): Answer {
  if (answer.kind === "problem") {
    return problem({ ...answer.problem, headers: { ...answer.problem.headers, ...headers } });
  }
  return { ...answer, headers: { ...answer.headers, ...headers } };
}

/** An answer as idempotency storage keeps it: rendered, minus the per-request id. */
export function toStored(answer: Answer, requestId: string): StoredResponse {
  const { status, headers, body } = render(answer, requestId);
  const { "x-request-id": _omitted, ...kept } = headers;
  return { status, headers: kept, body };
}

/**
 * Header names in lowercase, as HTTP/2 requires and as `HttpResponse` promises. Almost every
 * answer's names already are, and those keep their object: this runs for every response.
 */
const lowercased = (headers: Record<string, string>): Record<string, string> =>
  Object.keys(headers).every((name) => name === name.toLowerCase())
    ? headers
    : Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
      );

/** Renders an answer as the response sent, carrying the request id. */
export function render(answer: Answer, requestId: string): HttpResponse {
  const response = renderAnswer(answer, requestId);
  return { ...response, headers: lowercased(response.headers) };
}

function renderAnswer(answer: Answer, requestId: string): HttpResponse {
  switch (answer.kind) {
    case "problem":
      return problemResponse(answer.problem, requestId);
    case "empty":
      return {
        status: answer.status,
        headers: { ...answer.headers, "x-request-id": requestId },
        body: "",
      };
    case "stored":
      return {
        status: answer.status,
        headers: { ...answer.headers, "x-request-id": requestId },
        body: answer.body,
      };
    case "json":
      return {
        status: answer.status,
        headers: {
          "content-type": "application/json",
          ...answer.headers,
          "x-request-id": requestId,
        },
        body: JSON.stringify(answer.body),
      };
  }
}
