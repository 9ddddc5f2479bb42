import type { WebhookDisabledReason, WebhookSubscriptionRecord, WebhookTopic } from "../ports.js";

/** A webhook subscription as the API answers it; the secret is never part of it. */
export interface WebhookView {
  webhook_id: string;
  url: string;
  topics: WebhookTopic[];
  status: "active" | "inactive";
  description: string | null;
  /**
   * `"failing"` when the delivery engine turned it off because its attempts kept failing;
   * `null` otherwise. Turning it active again clears it.
   */
  disabled_reason: WebhookDisabledReason | null;
  created_at: string;
  updated_at: string;
}

/** The answer to create and rotate-secret: the only times the signing secret is shown. */
export interface WebhookWithSecret extends WebhookView {
  signing_secret: string;
}

/** The API view of a stored subscription. */
export const toWebhookView = (record: WebhookSubscriptionRecord): WebhookView => ({
  webhook_id: record.id,
  url: record.url,
  topics: record.topics,
  status: record.status,
  description: record.description,
  disabled_reason: record.disabledReason,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
});
