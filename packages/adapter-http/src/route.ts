import {
  type Actor,
  type ConflictError,
  type Deps,
  type InboundSink,
  type Principal,
  type Scope,
  validationError,
} from "@tidings/core";
import type { GenericSchema } from "valibot";
import { type Answer, problem } from "./answer.js";
import { isJsonObject, readJsonBody } from "./json-body.js";
import { domainProblem } from "./problem.js";
import type { HttpRequest } from "./types.js";

/** Everything a route handler may use: the request, its principal, its path parameters. */
export interface RouteContext {
  deps: Deps;
  /** Where inbound messages go (the sandbox's inbound route hands them here). */
  inbound: InboundSink;
  request: HttpRequest;
  requestId: string;
  principal: Principal;
  actor: Actor & { apiKeyId: string };
  params: Record<string, string>;
  query: URLSearchParams;
}

/** Names of the hand-written response schemas in `openapi/response-schemas.ts`. */
export type ResponseSchemaName =
  | "Profile"
  | "ProfilePage"
  | "ProfileWithSuppressions"
  | "SendResult"
  | "Webhook"
  | "WebhookWithSecret"
  | "WebhookList"
  | "WebhookTestResult"
  | "SandboxReportResult"
  | "SandboxMessage"
  | "Campaign"
  | "CampaignPage"
  | "Message"
  | "MessageWithEvents"
  | "MessagePage"
  | "Delivery"
  | "DeliveryWithAttempts"
  | "DeliveryPage"
  | "RecoverResult"
  | "Erasure"
  | "PersonExport"
  | "Suppression"
  | "SuppressionPage"
  | "InboundMessagePage"
  | "SandboxInboundResult"
  | "Settings";

/** A request body as the OpenAPI document names and shows it. */
export interface RequestBodyDoc {
  /** The component schema's name, e.g. `CreateProfileRequest`; unique across routes. */
  name: string;
  schema: GenericSchema;
  example: Record<string, unknown>;
}

/** What the OpenAPI document says about a route; kept on the route so the two cannot drift. */
export interface RouteDoc {
  operationId: string;
  summary: string;
  tag:
    | "Profiles"
    | "Messages"
    | "Webhooks"
    | "Campaigns"
    | "Deliveries"
    | "Suppressions"
    | "Sandbox"
    | "Privacy"
    | "Settings";
  /**
   * The JSON body: the valibot schema that validates it, published as the component schema
   * `name` (what client generators name their type), with an example request.
   */
  body?: RequestBodyDoc | undefined;
  /** The valibot schema that validates the query string. */
  query?: GenericSchema | undefined;
  success: {
    status: 200 | 201 | 202 | 204;
    schema: ResponseSchemaName | null;
    description: string;
    /** An example answer, shown in the document. */
    example?: unknown;
  };
  /** Every error status the route can answer, beyond the ones every authenticated route has. */
  errors: readonly number[];
  /**
   * The 409 codes the route can answer, when `errors` has 409; `idempotency_in_progress` is
   * added for an idempotent route.
   */
  conflicts?: readonly ConflictError["code"][] | undefined;
  /** Accepts `Idempotency-Key`. */
  idempotent?: boolean | undefined;
  /**
   * Answers `RateLimit-*` headers and may answer 429. Such a route counts every request past
   * the scope check, so `withinRateLimit` checks its query, after counting.
   */
  rateLimited?: boolean | undefined;
}

/** One endpoint: method, path template, the scope it needs, its handler and its docs. */
export interface Route {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  /** The scope the API key needs (every one of a list); `null` when any valid key will do. */
  scope: Scope | readonly Scope[] | null;
  doc: RouteDoc;
  handle(context: RouteContext): Promise<Answer>;
}

/**
 * Parses the JSON body and hands it to `next`, or answers the body's problem: 415, 400
 * `malformed_json`, or 400 at the path `body` when it is missing or not a JSON object (every
 * body of this API is an object; an array must not pass for one).
 */
export async function withJsonBody(
  context: RouteContext,
  next: (input: Record<string, unknown>) => Promise<Answer>,
): Promise<Answer> {
  const body = readJsonBody(context.request.headers, context.request.body);
  if (body.isErr()) return problem(body.error);
  if (!isJsonObject(body.value)) {
    const issue = { path: "body", message: "must be a JSON object." };
    return problem(
      domainProblem(validationError([issue], "The request body must be a JSON object.")),
    );
  }
  return next(body.value);
}

/**
 * The 400 of a query string sent to a route that takes none (`?limit=abc` on GET /v1/webhooks
 * must not pass unnoticed), one issue per parameter at its name; `null` when it has none.
 * Routes with a query schema validate their own query, in their use case.
 */
export function unexpectedQuery(query: URLSearchParams): Answer | null {
  const names = [...new Set(query.keys())];
  if (names.length === 0) return null;
  const issues = names.map((name) => ({
    path: name,
    message: "is not a parameter of this endpoint, which takes none.",
  }));
  return problem(domainProblem(validationError(issues)));
}

/**
 * The query string as a list use case expects it, one string per parameter, handed to `next`;
 * a parameter given twice is refused (400 at its name) rather than silently picking one.
 */
export async function withQuery(
  query: URLSearchParams,
  next: (values: Record<string, string>) => Promise<Answer>,
): Promise<Answer> {
  const values: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const [name, value] of query) {
    if (Object.hasOwn(values, name)) repeated.add(name);
    else values[name] = value;
  }
  if (repeated.size > 0) {
    const issues = [...repeated].map((name) => ({ path: name, message: "must be given once." }));
    return problem(domainProblem(validationError(issues)));
  }
  return next(values);
}
