import type {
  DeliveryAttemptRecord,
  DeliveryRecord,
  DeliveryStatus,
  WebhookSubscriptionRecord,
  WebhookTopic,
} from "../ports.js";
import { shownUrl } from "../support/shown-url.js";

/** The status words of the delivery log; a delivered delivery reads `succeeded`. */
export type DeliveryStatusView = "pending" | "succeeded" | "failed" | "cancelled";

export const DELIVERY_STATUS_VIEWS: readonly DeliveryStatusView[] = [
  "pending",
  "succeeded",
  "failed",
  "cancelled",
];

/** A delivery as the log shows it; the destination's secret is never part of it. */
export interface DeliveryView {
  delivery_id: string;
  /** `null` for a message's own `webhook_url`. */
  webhook_id: string | null;
  /** Scheme, host and path only; `null` when the subscription was deleted. */
  url: string | null;
  topic: WebhookTopic;
  message_id: string | null;
  status: DeliveryStatusView;
  attempt_count: number;
  last_status_code: number | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One attempt of a delivery as the log shows it. */
export interface DeliveryAttemptView {
  /** The `X-Service-Retry-Attempt` that was sent: 0 first. */
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  /** The receiver's answer, cut to 2 KiB. */
  response_body: string | null;
}

/** A delivery with its attempts, oldest first. */
export interface DeliveryWithAttemptsView extends DeliveryView {
  attempts: DeliveryAttemptView[];
}

/** The stored status of a status word of the log. */
export const storedDeliveryStatus = (status: DeliveryStatusView): DeliveryStatus =>
  status === "succeeded" ? "delivered" : status;

const statusView = (status: DeliveryStatus): DeliveryStatusView =>
  status === "delivered" ? "succeeded" : status;

/**
 * The view of a stored delivery. `subscriptions` holds the organization's subscriptions by id
 * (the current URL is the one retries use); a missing one was deleted.
 */
export function toDeliveryView(
  delivery: DeliveryRecord,
  subscriptions: ReadonlyMap<string, WebhookSubscriptionRecord>,
): DeliveryView {
  const { destination } = delivery;
  const url =
    destination.kind === "message"
      ? destination.url
      : (subscriptions.get(destination.webhookId)?.url ?? null);
  return {
    delivery_id: delivery.id,
    webhook_id: destination.kind === "subscription" ? destination.webhookId : null,
    url: url === null ? null : shownUrl(url),
    topic: delivery.topic,
    message_id: delivery.messageId,
    status: statusView(delivery.status),
    attempt_count: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_attempt_at: delivery.lastAttemptAt,
    next_attempt_at: delivery.status === "pending" ? delivery.nextAttemptAt : null,
    created_at: delivery.createdAt,
    updated_at: delivery.updatedAt,
  };
}

/** The view of a stored attempt. */
export const toAttemptView = (attempt: DeliveryAttemptRecord): DeliveryAttemptView => ({
  attempt: attempt.attempt,
  started_at: attempt.startedAt,
  duration_ms: attempt.durationMs,
  status_code: attempt.statusCode,
  error: attempt.error,
  response_body: attempt.responseBody,
});
