import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { ConflictError, DomainError } from "../errors.js";
import type { DeliveryRecord, WebhookSubscriptionRecord } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { instantFilter } from "../support/newest-first.js";
import { parseInput, strictFields } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { deliveryNotFound, findDelivery, subscriptionsById } from "./delivery-log.js";
import { type DeliveryView, toDeliveryView } from "./delivery-view.js";
import { findWebhook, webhookNotFound } from "./find-webhook.js";

const conflict = (code: ConflictError["code"], id: string, message: string): ConflictError => ({
  type: "conflict",
  code,
  message,
  conflicts: [{ id, reason: code }],
});

const stillPending = (id: string) =>
  conflict(
    "delivery_pending",
    id,
    `Delivery ${id} is still pending: the engine will attempt it; redeliver it once it has ended.`,
  );

/** 409 when the subscription cannot take deliveries now; `null` when it can. */
function unavailable(
  webhookId: string,
  subscription: WebhookSubscriptionRecord | undefined | null,
): ConflictError | null {
  if (!subscription) {
    return conflict("webhook_deleted", webhookId, `Webhook ${webhookId} was deleted.`);
  }
  if (subscription.status !== "active") {
    return conflict(
      "webhook_inactive",
      webhookId,
      `Webhook ${webhookId} is inactive; activate it before sending it deliveries.`,
    );
  }
  return null;
}

/**
 * Sends a delivery that has ended (succeeded, failed or cancelled) again: it is pending, due
 * now, with a new 72 h retry window, the same delivery id and body (receivers deduplicate on
 * the id), and attempt numbers going on. 409 `delivery_pending` while it is pending or an
 * attempt is still in flight, `webhook_deleted` / `webhook_inactive` when its subscription
 * cannot take it. The change is one conditional write, so it never races the engine into two
 * attempts at once.
 */
export function redeliverDelivery(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  deliveryId: string,
): ResultAsync<DeliveryView, DomainError> {
  return useCase("redeliverDelivery", async () => {
    const delivery = await findDelivery(deps.storage, actor.organizationId, deliveryId);
    if (!delivery) return err(deliveryNotFound(deliveryId));
    if (delivery.status === "pending") return err(stillPending(delivery.id));
    const subscriptions = await subscriptionsById(deps, actor);
    if (delivery.destination.kind === "subscription") {
      const { webhookId } = delivery.destination;
      const refused = unavailable(webhookId, subscriptions.get(webhookId));
      if (refused) return err(refused);
    }
    const now = isoAt(deps.clock.now());
    if (!(await deps.storage.deliveries.redeliver(actor.organizationId, delivery.id, now))) {
      return err(stillPending(delivery.id));
    }
    const updated: DeliveryRecord | null = await deps.storage.deliveries.get(
      actor.organizationId,
      delivery.id,
    );
    if (!updated) return err(deliveryNotFound(deliveryId));
    return ok(toDeliveryView(updated, subscriptions));
  });
}

/** POST /v1/webhooks/{webhook_id}/recover body. */
export const recoverWebhookInput = strictFields({ since: instantFilter }, "must be an object.");

/** What a recovery requeued. */
export interface RecoverResult {
  requeued: number;
}

/**
 * After an outage or an automatic disable: every failed or cancelled delivery of an active
 * subscription created at or after `since` is pending again, due now (each as a redelivery).
 */
export function recoverWebhook(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  webhookId: string,
  input: unknown,
): ResultAsync<RecoverResult, DomainError> {
  return useCase("recoverWebhook", async () => {
    const parsed = parseInput(recoverWebhookInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const subscription = await findWebhook(deps.storage, actor.organizationId, webhookId);
    if (!subscription) return err(webhookNotFound(webhookId));
    const refused = unavailable(webhookId, subscription);
    if (refused) return err(refused);
    const requeued = await deps.storage.deliveries.requeueForSubscription(
      actor.organizationId,
      subscription.id,
      parsed.value.since,
      isoAt(deps.clock.now()),
    );
    return ok({ requeued });
  });
}
