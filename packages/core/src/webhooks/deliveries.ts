import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import { type ConflictError, type DomainError, notFound } from "../errors.js";
import type { DeliveryAttemptRecord, DeliveryRecord, DeliveryStatus } from "../ports.js";
import { isoAt } from "../shared/clock.js";
import { isUuidV7 } from "../shared/ids.js";
import { useCase } from "../shared/result.js";

/** One attempt of a delivery as the API shows it. */
export interface DeliveryAttemptView {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

/** A delivery and its attempts; the destination's secret is never part of it. */
export interface DeliveryView {
  delivery_id: string;
  event_id: string;
  message_id: string | null;
  topic: string;
  destination: { type: "subscription"; webhook_id: string } | { type: "message"; url: string };
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  attempts: DeliveryAttemptView[];
}

/** The list envelope of a message's deliveries. */
export interface DeliveryList {
  data: DeliveryView[];
  meta: { has_more: false; next_cursor: null };
}

const toAttemptView = (a: DeliveryAttemptRecord): DeliveryAttemptView => ({
  attempt: a.attempt,
  started_at: a.startedAt,
  duration_ms: a.durationMs,
  status_code: a.statusCode,
  error: a.error,
  response_body: a.responseBody,
});

/** The API view of a delivery with its attempts. */
export const toDeliveryView = (
  d: DeliveryRecord,
  attempts: readonly DeliveryAttemptRecord[],
): DeliveryView => ({
  delivery_id: d.id,
  event_id: d.eventId,
  message_id: d.messageId,
  topic: d.topic,
  destination:
    d.destination.kind === "subscription"
      ? { type: "subscription", webhook_id: d.destination.webhookId }
      : { type: "message", url: d.destination.url },
  status: d.status,
  attempt_count: d.attempts,
  next_attempt_at: d.status === "pending" ? d.nextAttemptAt : null,
  last_status_code: d.lastStatusCode,
  last_error: d.lastError,
  created_at: d.createdAt,
  updated_at: d.updatedAt,
  attempts: attempts.map(toAttemptView),
});

/** Every delivery of a message's events, oldest first, each with its attempts. */
export function listMessageDeliveries(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  messageId: string,
): ResultAsync<DeliveryList, DomainError> {
  return useCase(async () => {
    const message = isUuidV7(messageId)
      ? await deps.storage.messages.get(actor.organizationId, messageId)
      : null;
    if (!message) return err(notFound("message", messageId, "message_not_found"));
    const deliveries = await deps.storage.deliveries.listForMessage(
      actor.organizationId,
      messageId,
    );
    const data = await Promise.all(
      deliveries.map(async (d) =>
        toDeliveryView(d, await deps.storage.deliveries.listAttempts(actor.organizationId, d.id)),
      ),
    );
    return ok({ data, meta: { has_more: false, next_cursor: null } });
  });
}

const notFailed = (d: DeliveryRecord): ConflictError => ({
  type: "conflict",
  code: "delivery_not_failed",
  message: `Only a failed delivery can be redelivered; delivery ${d.id} is ${d.status}.`,
  conflicts: [{ id: d.id, reason: d.status }],
});

/**
 * Makes a failed delivery pending again, due now: the engine attempts it within about a second,
 * with the same delivery id and the attempt count going on. A delivery that is not failed is a
 * 409 `delivery_not_failed` (it is pending, already delivered, or cancelled). The retry window
 * is not restarted, so a redelivery that fails again is failed at once.
 */
export function redeliverDelivery(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  deliveryId: string,
): ResultAsync<DeliveryView, DomainError> {
  return useCase(() =>
    deps.storage.transaction(async (tx) => {
      const delivery = isUuidV7(deliveryId)
        ? await tx.deliveries.get(actor.organizationId, deliveryId)
        : null;
      if (!delivery) return err(notFound("delivery", deliveryId, "delivery_not_found"));
      if (delivery.status !== "failed") return err(notFailed(delivery));
      await tx.deliveries.redeliver(actor.organizationId, deliveryId, isoAt(deps.clock.now()));
      const updated = await tx.deliveries.get(actor.organizationId, deliveryId);
      const attempts = await tx.deliveries.listAttempts(actor.organizationId, deliveryId);
      return ok(toDeliveryView(updated ?? delivery, attempts));
    }),
  );
}
