import { toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import type { Route } from "../route.js";
import { conflictResponse, errorResponses, standardHeaders } from "./error-responses.js";
import { responseSchemas } from "./response-schemas.js";

type JsonObject = Record<string, unknown>;

/**
 * A request schema as JSON Schema 2020-12 (the dialect of OpenAPI 3.1), converted from the very
 * valibot schema that validates the request. Checks valibot cannot express (phone numbers,
 * name lengths in code points) are left out rather than guessed.
 */
export function requestSchema(schema: GenericSchema): JsonObject {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, {
    errorMode: "ignore",
    target: "draft-2020-12",
    overrideAction: ({ valibotAction }) => documentedAs(valibotAction),
  }) as JsonObject;
  return rest;
}

/**
 * The JSON Schema a valibot pipe states for itself with `v.metadata({ openApi })`, in place
 * of what was converted before it: for checks that are code (a custom object check, a
 * string-or-number parsed into an integer), which would otherwise be published as `{}` or
 * as a vague union.
 */
function documentedAs(action: { type: string; metadata?: unknown }): JsonObject | undefined {
  if (action.type !== "metadata") return undefined;
  const stated = (action.metadata as JsonObject | undefined)?.openApi;
  return typeof stated === "object" && stated !== null ? (stated as JsonObject) : undefined;
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const jsonContent = (schemaName: string, example?: unknown) => ({
  "application/json": {
    schema: ref("schemas", schemaName),
    ...(example === undefined ? {} : { example }),
  },
});

function parameters(route: Route): JsonObject[] {
  const list: JsonObject[] = [ref("parameters", "RequestId")];
  for (const [, name] of route.path.matchAll(/\{([a-z_]+)\}/g)) {
    list.push({ name, in: "path", required: true, schema: { type: "string" } });
  }
  if (route.doc.query) {
    const query = requestSchema(route.doc.query);
    const required = (query.required as string[] | undefined) ?? [];
    const properties = (query.properties as Record<string, JsonObject> | undefined) ?? {};
    for (const [name, schema] of Object.entries(properties)) {
      list.push({ name, in: "query", required: required.includes(name), schema });
    }
  }
  if (route.doc.idempotent) list.push(ref("parameters", "IdempotencyKey"));
  return list;
}

/** The error statuses whose answers an idempotent route stores and replays. */
const REPLAYED_ERRORS = new Set([400, 404, 409]);

/**
 * One error answer of an operation: the shared response, or, where the operation adds headers
 * to it (`RateLimit-*` on every answer past authentication of a rate-limited route,
 * `Idempotent-Replayed` on a replayed error) or narrows its codes (409), a copy that says so.
 */
function errorResponse(route: Route, status: number): JsonObject {
  const { doc } = route;
  const headers: JsonObject = {};
  // On the answers past authentication and the scope check: some answers of the status only.
  // (401, 405 and 413 come before the route; 429's shared answer has them already.)
  if (doc.rateLimited && ![401, 405, 413, 429].includes(status)) {
    for (const [name, header] of Object.entries(standardHeaders.rateLimit)) {
      headers[name] = { ...header, required: false };
    }
  }
  if (doc.idempotent && REPLAYED_ERRORS.has(status)) {
    headers["Idempotent-Replayed"] = { ...standardHeaders.replayed, required: false };
  }
  if (status === 409) {
    const codes = [
      ...(doc.conflicts ?? []),
      ...(doc.idempotent ? (["idempotency_in_progress"] as const) : []),
    ];
    if (codes.length === 0) {
      throw new Error(`${route.method} ${route.path} answers 409 but names no conflict code.`);
    }
    return conflictResponse(codes, headers);
  }
  if (Object.keys(headers).length === 0) return ref("responses", `E${status}`);
  const shared = errorResponses[`E${status}`] as { headers?: JsonObject };
  return { ...shared, headers: { ...shared.headers, ...headers } };
}

function operation(route: Route): JsonObject {
  const { doc } = route;
  const successHeaders: JsonObject = { "X-Request-Id": standardHeaders.requestId };
  if (doc.rateLimited) Object.assign(successHeaders, standardHeaders.rateLimit);
  if (doc.idempotent) successHeaders["Idempotent-Replayed"] = standardHeaders.replayed;
  const responses: JsonObject = {
    [doc.success.status]: {
      description: doc.success.description,
      headers: successHeaders,
      ...(doc.success.schema
        ? { content: jsonContent(doc.success.schema, doc.success.example) }
        : {}),
    },
  };
  // Any request may be malformed at the edge (a NUL in the URL: 400) or too large (413), and
  // may find the database locked by another process for too long (503); its path answers 405
  // to any other method.
  const statuses = new Set([...doc.errors, 400, 401, 405, 413, 500, 503]);
  if (route.scope) statuses.add(403);
  for (const status of [...statuses].sort()) responses[status] = errorResponse(route, status);
  const scopes = route.scope === null ? [] : [route.scope].flat();
  const description = route.scope
    ? `Requires the scope${scopes.length > 1 ? "s" : ""} ${scopes.map((s) => `\`${s}\``).join(" and ")}.`
    : "Any valid API key; the message must have been sent with it.";
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    description,
    tags: [doc.tag],
    parameters: parameters(route),
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: ref("schemas", doc.body.name),
                example: doc.body.example,
              },
            },
          },
        }
      : {}),
    responses,
  };
}

const publicOperation = (
  operationId: string,
  summary: string,
  ok: JsonObject,
  extra: Record<number, JsonObject> = {},
): JsonObject => ({
  operationId,
  summary,
  tags: ["Operations"],
  security: [],
  parameters: [ref("parameters", "RequestId")],
  // Like every request, these may be malformed at the edge (a NUL in the URL: 400) or too
  // large (413), before routing.
  responses: {
    200: ok,
    400: ref("responses", "E400"),
    405: ref("responses", "E405"),
    413: ref("responses", "E413"),
    ...extra,
    500: ref("responses", "E500"),
  },
});

export interface OpenApiOptions {
  /** Where the API is mounted, e.g. `/messaging`; the `servers` entry. */
  basePath?: string | undefined;
  version?: string | undefined;
}

/**
 * Every request body schema, by its component name. Two routes may share a body only by
 * sharing its valibot schema, so a name never stands for two shapes.
 */
function requestSchemas(routes: readonly Route[]): Record<string, JsonObject> {
  const owners = new Map<string, GenericSchema>();
  const schemas: Record<string, JsonObject> = {};
  for (const { doc } of routes) {
    if (!doc.body) continue;
    const { name, schema } = doc.body;
    const owner = owners.get(name);
    if (owner !== undefined && owner !== schema) {
      throw new Error(`Two request bodies are named ${name}; give each its own name.`);
    }
    if (Object.hasOwn(responseSchemas, name)) {
      throw new Error(`The request body ${name} is named like a response schema.`);
    }
    owners.set(name, schema);
    schemas[name] = requestSchema(schema);
  }
  return schemas;
}

/** The OpenAPI 3.1 document of `routes`, plus the public health and document endpoints. */
export function buildOpenApiDocument(routes: readonly Route[], options: OpenApiOptions = {}) {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  const health = { description: "Up.", content: jsonContent("Health") };
  paths["/healthz"] = { get: publicOperation("health", "Liveness: the process answers.", health) };
  paths["/readyz"] = {
    get: publicOperation("readiness", "Readiness: storage answers.", health, {
      503: ref("responses", "E503"),
    }),
  };
  paths["/openapi.json"] = {
    get: publicOperation("openapi", "This document.", {
      description: "The OpenAPI 3.1 document.",
      content: { "application/json": { schema: { type: "object" } } },
    }),
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Tidings API",
      version: options.version ?? "1.0.0",
      description:
        "Profiles, message dispatch through API campaigns, and signed webhooks. Errors are " +
        "RFC 9457 problem documents (`application/problem+json`) with a stable `code`. An " +
        "unknown path answers 404 and a known path with another method answers 405 with `Allow`; " +
        "under `/v1` authentication comes first, so without a valid key either is 401. HEAD is " +
        "answered wherever GET is, with the same status and headers and no body. Under `/v1`, an " +
        "endpoint with no query parameters answers 400 to any, naming each.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: options.basePath || "/" }],
    security: [{ bearer: [] }],
    tags: [
      { name: "Profiles" },
      { name: "Messages" },
      { name: "Webhooks" },
      { name: "Campaigns" },
      { name: "Deliveries" },
      { name: "Privacy" },
      { name: "Suppressions" },
      { name: "Settings" },
      { name: "Sandbox" },
      { name: "Operations" },
    ],
    paths,
    components: {
      schemas: { ...requestSchemas(routes), ...responseSchemas },
      responses: errorResponses,
      parameters: {
        RequestId: {
          name: "X-Request-Id",
          in: "header",
          required: false,
          description: "Echoed when 1–128 visible ASCII characters; otherwise a UUID v7 is made.",
          schema: { type: "string", maxLength: 128 },
        },
        IdempotencyKey: {
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description:
            "Scoped to the API key and path, kept 24 h: the same body replays the stored " +
            "answer; another body is 422; a repeat while the first runs is 409.",
          schema: { type: "string", minLength: 1, maxLength: 255 },
        },
      },
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "<key_id>:<key_secret>",
          description: "`Authorization: Bearer <key_id>:<key_secret>`.",
        },
      },
    },
  };
}
