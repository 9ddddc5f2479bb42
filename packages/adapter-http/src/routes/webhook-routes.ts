import {
  checkWebhookTestRateLimit,
  createWebhook,
  createWebhookInput,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
  testWebhookInput,
  updateWebhook,
  updateWebhookInput,
} from "@tidings/core";
import { fromResult } from "../answer.js";
import type { Route } from "../route.js";
import { withJsonBody } from "../route.js";
import { withinRateLimit } from "./rate-limited.js";
import { callWithBody, callWithId, callWithIdAndBody } from "./use-case-handlers.js";

/**
 * The webhook subscription endpoints. `POST /v1/webhooks/test` is a literal path: the router
 * prefers it over `/v1/webhooks/{webhook_id}`, so `test` is never taken for an id.
 */
export const webhookRoutes: Route[] = [
  {
    method: "POST",
    path: "/v1/webhooks",
    scope: "webhooks:manage",
    doc: {
      operationId: "createWebhook",
      summary: "Create a subscription; its signing secret is answered only now.",
      tag: "Webhooks",
      body: {
        name: "CreateWebhookRequest",
        schema: createWebhookInput,
        example: {
          url: "https://example.com/hooks/tidings",
          topics: ["message.delivered", "message.failed"],
          description: "Delivery reports",
        },
      },
      success: { status: 201, schema: "WebhookWithSecret", description: "The subscription." },
      errors: [400, 409, 413, 415],
      conflicts: ["webhook_limit_reached", "webhook_topic_overlap", "webhook_subscription_limit"],
    },
    handle: callWithBody(createWebhook, 201),
  },
  {
    method: "GET",
    path: "/v1/webhooks",
    scope: "webhooks:manage",
    doc: {
      operationId: "listWebhooks",
      summary: "List the organization's subscriptions, oldest first.",
      tag: "Webhooks",
      success: { status: 200, schema: "WebhookList", description: "Every subscription." },
      errors: [],
    },
    handle: async ({ deps, actor }) => fromResult(await listWebhooks(deps, actor)),
  },
  {
    method: "POST",
    path: "/v1/webhooks/test",
    scope: "webhooks:manage",
    doc: {
      operationId: "testWebhook",
      summary: "Send one signed webhook.test event to a subscription now, without retries.",
      tag: "Webhooks",
      body: {
        name: "TestWebhookRequest",
        schema: testWebhookInput,
        example: { webhook_id: "whk_01jd3v6k8x2m4n5p6q7r8s9t0v" },
      },
      success: {
        status: 200,
        schema: "WebhookTestResult",
        description: "How the receiver answered, also when it failed.",
      },
      errors: [400, 404, 413, 415, 429],
      rateLimited: true,
    },
    async handle(context) {
      // Each test is an outbound request to a URL the client chose: counted first, like sends.
      const decision = await checkWebhookTestRateLimit(context.deps, context.actor.apiKeyId);
      return withinRateLimit(decision, "test webhooks", context.query, () =>
        withJsonBody(context, async (input) =>
          fromResult(await testWebhook(context.deps, context.actor, input)),
        ),
      );
    },
  },
  {
    method: "GET",
    path: "/v1/webhooks/{webhook_id}",
    scope: "webhooks:manage",
    doc: {
      operationId: "getWebhook",
      summary: "Retrieve a subscription.",
      tag: "Webhooks",
      success: { status: 200, schema: "Webhook", description: "The subscription." },
      errors: [404],
    },
    handle: callWithId("webhook_id", getWebhook),
  },
  {
    method: "PATCH",
    path: "/v1/webhooks/{webhook_id}",
    scope: "webhooks:manage",
    doc: {
      operationId: "updateWebhook",
      summary: "Update a subscription's URL, topics, status or description.",
      tag: "Webhooks",
      body: {
        name: "UpdateWebhookRequest",
        schema: updateWebhookInput,
        example: { status: "inactive" },
      },
      success: { status: 200, schema: "Webhook", description: "The updated subscription." },
      errors: [400, 404, 409, 413, 415],
      conflicts: ["webhook_limit_reached", "webhook_topic_overlap"],
    },
    handle: callWithIdAndBody("webhook_id", updateWebhook),
  },
  {
    method: "DELETE",
    path: "/v1/webhooks/{webhook_id}",
    scope: "webhooks:manage",
    doc: {
      operationId: "deleteWebhook",
      summary: "Delete a subscription and cancel the deliveries still owed to it.",
      tag: "Webhooks",
      success: { status: 204, schema: null, description: "The subscription was deleted." },
      errors: [404],
    },
    handle: callWithId("webhook_id", deleteWebhook, 204),
  },
  {
    method: "POST",
    path: "/v1/webhooks/{webhook_id}/rotate-secret",
    scope: "webhooks:manage",
    doc: {
      operationId: "rotateWebhookSecret",
      summary: "Replace the signing secret; the old one stops at once.",
      tag: "Webhooks",
      success: {
        status: 200,
        schema: "WebhookWithSecret",
        description: "The subscription with its new signing secret.",
      },
      errors: [404],
    },
    handle: callWithId("webhook_id", rotateWebhookSecret),
  },
];
