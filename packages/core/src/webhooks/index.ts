// The webhook part of @tidings/core, named one by one for the package's index.
// signing.ts and retry-schedule.ts export their own names beside these.

export type { AttemptReport } from "./attempt-delivery.js";
export {
  type AttemptResult,
  makeAttempt,
  RESPONSE_BODY_LIMIT,
} from "./attempt-delivery.js";
export type { ResolvedDestination } from "./delivery-destination.js";
export { destinationKey, resolveDestination } from "./delivery-destination.js";
export type {
  DeliveryEngine,
  DeliveryEngineOptions,
  DeliveryLogEntry,
} from "./delivery-engine.js";
export { createDeliveryEngine } from "./delivery-engine.js";
export {
  getDelivery,
  listDeliveries,
  listDeliveriesOfQuery,
  listDeliveriesQuery,
  listMessageDeliveries,
  listWebhookDeliveries,
} from "./delivery-log.js";
export type {
  DeliveryAttemptView,
  DeliveryStatusView,
  DeliveryView,
  DeliveryWithAttemptsView,
} from "./delivery-view.js";
export { toAttemptView, toDeliveryView } from "./delivery-view.js";
export type { EventBody, EventData, TestEventData } from "./event-body.js";
export { messageEventBody, testEventBody } from "./event-body.js";
export type { FailingDestinationView } from "./failing-destinations.js";
export { FAILING_DESTINATIONS_SCAN, listFailingDestinations } from "./failing-destinations.js";
export { recordEvent, routeEvent } from "./outbox.js";
export type { RecoverResult } from "./redeliver.js";
export { recoverWebhook, recoverWebhookInput, redeliverDelivery } from "./redeliver.js";
export { MAX_ACTIVE_WEBHOOKS, MAX_WEBHOOK_SUBSCRIPTIONS } from "./subscription-rules.js";
export type { WebhookList } from "./subscriptions.js";
export {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
} from "./subscriptions.js";
export type { WebhookTestResult } from "./test-webhook.js";
export { testWebhook } from "./test-webhook.js";
export { updateWebhook } from "./update-webhook.js";
export type { CreateWebhookInput, UpdateWebhookInput } from "./webhook-input.js";
export {
  createWebhookInput,
  TOPICS,
  testWebhookInput,
  updateWebhookInput,
} from "./webhook-input.js";
export type { WebhookView, WebhookWithSecret } from "./webhook-view.js";
export { toWebhookView } from "./webhook-view.js";
