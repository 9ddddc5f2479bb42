import { type NotFoundError, notFound } from "../errors.js";
import type { Repositories, WebhookSubscriptionRecord } from "../ports.js";
import { isPrefixedId } from "../support/ids.js";

/** The 404 for any webhook id the caller's organization cannot see. */
export const webhookNotFound = (id: string): NotFoundError =>
  notFound("webhook", id, "webhook_not_found");

/** The caller's subscription with this id, or `null` (malformed, unknown, another org's). */
export async function findWebhook(
  repositories: Pick<Repositories, "webhooks">,
  organizationId: string,
  id: string,
): Promise<WebhookSubscriptionRecord | null> {
  // A malformed id cannot exist, so storage is not asked.
  if (!isPrefixedId(id, "whk")) return null;
  return repositories.webhooks.get(organizationId, id);
}
