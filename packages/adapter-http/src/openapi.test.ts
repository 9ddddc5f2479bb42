import { Validator } from "@seriousme/openapi-schema-validator";
import { createProfileInput, sendMessageInput } from "@tidings/core";
import { describe, expect, it } from "vitest";
import { servedOpenApiDocument } from "./app.js";
import { requestSchema } from "./openapi/document.js";
import { specWorld } from "./testing/world-with-spec.js";

type Operation = {
  security?: unknown[];
  parameters?: unknown[];
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, { schema: unknown }> };
};

const EXPECTED = [
  "get /v1/profiles",
  "post /v1/profiles",
  "get /v1/profiles/{public_id}",
  "patch /v1/profiles/{public_id}",
  "delete /v1/profiles/{public_id}",
  "post /v1/profiles/{public_id}/erase",
  "get /v1/profiles/{public_id}/export",
  "post /v1/privacy/erase",
  "get /v1/privacy/export",
  "post /v1/messages/send",
  "post /v1/webhooks",
  "get /v1/webhooks",
  "get /v1/webhooks/{webhook_id}",
  "patch /v1/webhooks/{webhook_id}",
  "delete /v1/webhooks/{webhook_id}",
  "post /v1/webhooks/{webhook_id}/rotate-secret",
  "post /v1/webhooks/test",
  "get /v1/messages",
  "get /v1/messages/{message_id}",
  "post /v1/messages/{message_id}/cancel",
  "get /v1/messages/{message_id}/deliveries",
  "post /v1/campaigns",
  "get /v1/campaigns",
  "get /v1/campaigns/{campaign_id}",
  "patch /v1/campaigns/{campaign_id}",
  "post /v1/campaigns/{campaign_id}/activate",
  "post /v1/campaigns/{campaign_id}/deactivate",
  "get /v1/deliveries",
  "get /v1/deliveries/{delivery_id}",
  "post /v1/deliveries/{delivery_id}/redeliver",
  "get /v1/webhooks/{webhook_id}/deliveries",
  "post /v1/webhooks/{webhook_id}/recover",
  "get /v1/suppressions",
  "post /v1/suppressions",
  "delete /v1/suppressions/{channel}/{phone_number}",
  "get /v1/inbound",
  "get /v1/settings",
  "patch /v1/settings",
  "post /sandbox/messages/{message_id}/report",
  "get /healthz",
  "get /readyz",
  "get /openapi.json",
];

async function served() {
  const world = await specWorld();
  const document = world.document as {
    paths: Record<string, Record<string, Operation>>;
    components: { responses: Record<string, unknown>; schemas: Record<string, JsonSchema> };
  };
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ key: `${method} ${path}`, operation })),
  );
  return { document, operations };
}

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document for a maintained validator", async () => {
    const { document } = await served();
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("covers every endpoint, and nothing else", async () => {
    const { operations } = await served();
    expect(operations.map((o) => o.key).sort()).toEqual([...EXPECTED].sort());
  });

  it("in development, also documents the sandbox's development view, which it serves then", () => {
    const keys = (document: ReturnType<typeof servedOpenApiDocument>) =>
      Object.keys((document as { paths: Record<string, unknown> }).paths);
    expect(keys(servedOpenApiDocument({ sandbox: true, dev: true }))).toContain(
      "/sandbox/messages/{message_id}",
    );
    expect(keys(servedOpenApiDocument({ sandbox: true }))).not.toContain(
      "/sandbox/messages/{message_id}",
    );
  });

  it("states the bearer scheme; only the three public endpoints opt out of it", async () => {
    const { document, operations } = await served();
    expect(document).toMatchObject({
      security: [{ bearer: [] }],
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    });
    const open = operations.filter((o) => o.operation.security?.length === 0).map((o) => o.key);
    expect(open.sort()).toEqual(["get /healthz", "get /openapi.json", "get /readyz"]);
  });

  it("documents 401 and 500 on every authenticated operation, and every error status once", async () => {
    const { document, operations } = await served();
    for (const { key, operation } of operations) {
      if (operation.security?.length === 0) continue;
      expect(Object.keys(operation.responses), key).toEqual(expect.arrayContaining(["401", "500"]));
    }
    const shared = Object.keys(
      (document as { components: { responses: object } }).components.responses,
    );
    for (const status of [400, 401, 403, 404, 405, 413, 415, 422, 429, 500, 503]) {
      expect(shared).toContain(`E${status}`);
    }
    // Every shared answer is some operation's (a linter flags one that none refers to).
    const referenced = JSON.stringify(document.paths);
    for (const name of shared)
      expect(referenced, name).toContain(`#/components/responses/${name}"`);
  });

  it("answers 405 on every path, for the methods it does not take", async () => {
    const { operations } = await served();
    for (const { key, operation } of operations) {
      expect(operation.responses["405"], key).toEqual({ $ref: "#/components/responses/E405" });
    }
  });

  it("lists every 409 code each operation can answer, and only on operations that answer 409", async () => {
    const { operations } = await served();
    const conflicts = Object.fromEntries(
      operations
        .filter(({ operation }) => "409" in operation.responses)
        .map(({ key, operation }) => {
          const response = operation.responses["409"] as {
            content: Record<
              string,
              { schema: { allOf: Array<{ properties?: { code?: { enum: string[] } } }> } }
            >;
          };
          const schema = response.content["application/problem+json"]?.schema;
          return [key, schema?.allOf[1]?.properties?.code?.enum];
        }),
    );
    expect(conflicts).toEqual({
      "post /v1/profiles": ["phone_number_taken", "idempotency_in_progress"],
      "patch /v1/profiles/{public_id}": ["phone_number_taken", "profile_protected"],
      "delete /v1/profiles/{public_id}": ["profile_protected"],
      "post /v1/messages/send": ["idempotency_in_progress"],
      "post /v1/messages/{message_id}/cancel": ["message_not_scheduled"],
      "post /v1/webhooks": [
        "webhook_limit_reached",
        "webhook_topic_overlap",
        "webhook_subscription_limit",
      ],
      "patch /v1/webhooks/{webhook_id}": ["webhook_limit_reached", "webhook_topic_overlap"],
      "post /v1/campaigns": ["sender_taken"],
      "patch /v1/campaigns/{campaign_id}": ["campaign_active", "sender_taken"],
      "post /v1/campaigns/{campaign_id}/activate": ["sender_taken"],
      "post /v1/deliveries/{delivery_id}/redeliver": [
        "delivery_pending",
        "webhook_deleted",
        "webhook_inactive",
      ],
      "post /v1/webhooks/{webhook_id}/recover": ["webhook_inactive"],
    });
  });

  it("declares the rate-limit and replay headers on the error answers that carry them", async () => {
    const { operations } = await served();
    const send = operations.find(({ key }) => key === "post /v1/messages/send")?.operation;
    const headersOf = (status: string) =>
      Object.keys((send?.responses[status] as { headers?: object } | undefined)?.headers ?? {});
    for (const status of ["400", "403", "404", "409", "422"]) {
      expect(headersOf(status), status).toEqual(
        expect.arrayContaining(["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]),
      );
    }
    for (const status of ["400", "404", "409"]) {
      expect(headersOf(status), status).toContain("Idempotent-Replayed");
    }
    expect(send?.responses["429"]).toEqual({ $ref: "#/components/responses/E429" });
    expect(headersOf("401")).not.toContain("RateLimit-Limit");
    // As the server answers: a refused send carries them.
    const world = await specWorld();
    const refused = await world.request("POST", "/v1/messages/send", { body: { campaign: "x" } });
    expect(refused.status).toBe(400);
    expect(refused.headers["ratelimit-remaining"]).toMatch(/^\d+$/);
  });

  it("request bodies are named component schemas: the valibot schemas that validate them", async () => {
    const { document } = await served();
    const schemas = document.components.schemas;
    const body = (path: string) =>
      document.paths[path]?.post?.requestBody?.content["application/json"]?.schema;
    expect(body("/v1/profiles")).toEqual({ $ref: "#/components/schemas/CreateProfileRequest" });
    expect(schemas.CreateProfileRequest).toEqual(requestSchema(createProfileInput));
    expect(schemas.SendMessageRequest).toEqual(requestSchema(sendMessageInput));
    expect(schemas.CreateProfileRequest).toMatchObject({
      required: ["phone_number"],
      additionalProperties: false,
    });
  });

  it("names every request and response body, with an example, for client generators", async () => {
    const { document, operations } = await served();
    const schemas = document.components.schemas;
    for (const { key, operation } of operations) {
      const media = operation.requestBody?.content["application/json"] as
        | { schema: { $ref?: string }; example?: unknown }
        | undefined;
      if (media) {
        expect(media.schema.$ref, key).toMatch(/^#\/components\/schemas\/\w+Request$/);
        expect(media.example, key).toBeTypeOf("object");
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        const content = (response as { content?: Record<string, { schema: { $ref?: string } }> })
          .content;
        const schema = content?.["application/json"]?.schema;
        if (schema && key !== "get /openapi.json") {
          expect(schema.$ref, `${key} ${status}`).toMatch(/^#\/components\/schemas\/\w+$/);
        }
      }
    }
    for (const name of ["Profile", "SendResult", "Webhook", "WebhookWithSecret", "Problem"]) {
      expect(schemas[name], name).toHaveProperty("examples");
    }
  });

  it("types every enum and states params as an object of strings, limit as an integer", async () => {
    const { document } = await served();
    const untyped: string[] = [];
    const visit = (node: unknown, at: string) => {
      if (typeof node !== "object" || node === null) return;
      const record = node as Record<string, unknown>;
      if (Array.isArray(record.enum) && typeof record.type !== "string") untyped.push(at);
      for (const [key, child] of Object.entries(record)) visit(child, `${at}/${key}`);
    };
    visit(document, "");
    expect(untyped).toEqual([]);
    const schemas = (document as { components: { schemas: Record<string, JsonSchema> } }).components
      .schemas;
    expect(schemas.SendMessageRequest?.properties?.params).toMatchObject({
      type: "object",
      additionalProperties: { type: "string" },
    });
    const list = document.paths["/v1/profiles"]?.get as unknown as {
      parameters: Array<{ name?: string; schema?: unknown }>;
    };
    expect(list.parameters.find((p) => p.name === "limit")?.schema).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 50,
    });
  });

  it("every operator operation names its component schema and shows examples that match it", async () => {
    const { document, operations } = await served();
    const world = await specWorld();
    const operator = operations.filter(({ key }) =>
      /campaigns|deliveries|recover|get \/v1\/messages/.test(key),
    );
    expect(operator).toHaveLength(14);
    for (const { key, operation } of operator) {
      const success = Object.entries(operation.responses).find(([status]) => status < "300");
      const content = (
        success?.[1] as { content?: Record<string, { schema: unknown; example?: unknown }> }
      )?.content?.["application/json"];
      expect(content?.schema, key).toMatchObject({
        $ref: expect.stringMatching(/^#\/components\/schemas\//),
      });
      expect(content?.example, key).toBeDefined();
      // The example is checked like a real answer would be.
      const [method, path] = key.split(" ");
      world.matcher.expectMatchesSpec(method ?? "", path ?? "", {
        status: Number(success?.[0]),
        headers: { "content-type": "application/json", "x-request-id": "r" },
        body: JSON.stringify(content?.example),
      });
      if (operation.requestBody) {
        expect(
          (operation.requestBody.content["application/json"] as { example?: unknown }).example,
          key,
        ).toBeDefined();
      }
    }
    expect(
      Object.keys((document as unknown as { components: { schemas: object } }).components.schemas),
    ).toEqual(
      expect.arrayContaining([
        "Campaign",
        "MessageWithEvents",
        "DeliveryWithAttempts",
        "DeliveryPage",
      ]),
    );
  });
});

type JsonSchema = { properties?: Record<string, unknown> };
