import {
  getDelivery,
  listDeliveries,
  listDeliveriesOfQuery,
  listDeliveriesQuery,
  listMessageDeliveries,
  listWebhookDeliveries,
  recoverWebhook,
  recoverWebhookInput,
  redeliverDelivery,
} from "@tidings/core";
import type { Route } from "../route.js";
import { DELIVERY_EXAMPLE, DELIVERY_WITH_ATTEMPTS_EXAMPLE, pageOf } from "./operator-examples.js";
import {
  callWithId,
  callWithIdAndBody,
  callWithIdAndQuery,
  callWithQuery,
} from "./use-case-handlers.js";

const PAGE = {
  status: 200,
  schema: "DeliveryPage",
  description: "A page of deliveries.",
  example: pageOf(DELIVERY_EXAMPLE),
} as const;

/** The delivery log and redelivery, under `webhooks:manage`. */
export const deliveryRoutes: Route[] = [
  {
    method: "GET",
    path: "/v1/deliveries",
    scope: "webhooks:manage",
    doc: {
      operationId: "listDeliveries",
      summary:
        "List the organization's webhook deliveries, newest first, by status, subscription " +
        "and creation time; deliveries to messages' own webhook_url included.",
      tag: "Deliveries",
      query: listDeliveriesQuery,
      success: PAGE,
      errors: [400],
    },
    handle: callWithQuery(listDeliveries),
  },
  {
    method: "GET",
    path: "/v1/deliveries/{delivery_id}",
    scope: "webhooks:manage",
    doc: {
      operationId: "getDelivery",
      summary: "Retrieve a delivery with every attempt, oldest first.",
      tag: "Deliveries",
      success: {
        status: 200,
        schema: "DeliveryWithAttempts",
        description: "The delivery and its attempts.",
        example: DELIVERY_WITH_ATTEMPTS_EXAMPLE,
      },
      errors: [404],
    },
    handle: callWithId("delivery_id", getDelivery),
  },
  {
    method: "POST",
    path: "/v1/deliveries/{delivery_id}/redeliver",
    scope: "webhooks:manage",
    doc: {
      operationId: "redeliverDelivery",
      summary:
        "Send an ended delivery again, due now with a new 72 h retry window: the same " +
        "delivery id and body, attempt numbers going on. 409 `delivery_pending` while it is " +
        "pending, `webhook_deleted` or `webhook_inactive` when its subscription cannot take it.",
      tag: "Deliveries",
      success: {
        status: 202,
        schema: "Delivery",
        description: "The delivery, pending.",
        example: {
          ...DELIVERY_EXAMPLE,
          status: "pending",
          next_attempt_at: "2026-01-15T10:00:00.000Z",
          updated_at: "2026-01-15T10:00:00.000Z",
        },
      },
      errors: [404, 409],
      conflicts: ["delivery_pending", "webhook_deleted", "webhook_inactive"],
    },
    handle: callWithId("delivery_id", redeliverDelivery, 202),
  },
  {
    method: "GET",
    path: "/v1/messages/{message_id}/deliveries",
    scope: "webhooks:manage",
    doc: {
      operationId: "listMessageDeliveries",
      summary: "List the deliveries of a message's events, newest first.",
      tag: "Deliveries",
      query: listDeliveriesOfQuery,
      success: PAGE,
      errors: [400, 404],
    },
    handle: callWithIdAndQuery("message_id", listMessageDeliveries),
  },
  {
    method: "GET",
    path: "/v1/webhooks/{webhook_id}/deliveries",
    scope: "webhooks:manage",
    doc: {
      operationId: "listWebhookDeliveries",
      summary: "List a subscription's deliveries, newest first, optionally by status.",
      tag: "Deliveries",
      query: listDeliveriesOfQuery,
      success: PAGE,
      errors: [400, 404],
    },
    handle: callWithIdAndQuery("webhook_id", listWebhookDeliveries),
  },
  {
    method: "POST",
    path: "/v1/webhooks/{webhook_id}/recover",
    scope: "webhooks:manage",
    doc: {
      operationId: "recoverWebhook",
      summary:
        "After an outage or an automatic disable: every failed or cancelled delivery of the " +
        "subscription created since `since` is pending again, due now.",
      tag: "Deliveries",
      body: {
        name: "RecoverWebhookRequest",
        schema: recoverWebhookInput,
        example: { since: "2026-01-15T00:00:00Z" },
      },
      success: {
        status: 202,
        schema: "RecoverResult",
        description: "How many deliveries are pending again.",
        example: { requeued: 42 },
      },
      errors: [400, 404, 409, 413, 415],
      conflicts: ["webhook_inactive"],
    },
    handle: callWithIdAndBody("webhook_id", recoverWebhook, 202),
  },
];
