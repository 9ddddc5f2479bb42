import { err, type Result } from "neverthrow";
import { type DomainError, type NotFoundError, notFound } from "../errors.js";
import type { Repositories, Storage, WebhookSubscriptionRecord } from "../ports.js";
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

/**
 * Runs `change` on the caller's subscription `id` in one transaction, under the organization's
 * lock taken before the read, so that a concurrent PATCH, rotation or delete neither undoes
 * this change nor is undone by it; the subscription's 404 when the caller cannot see it.
 */
export function changeWebhook<T>(
  storage: Pick<Storage, "transaction">,
  organizationId: string,
  id: string,
  change: (tx: Repositories, current: WebhookSubscriptionRecord) => Promise<Result<T, DomainError>>,
): Promise<Result<T, DomainError>> {
  return storage.transaction(async (tx) => {
    await tx.webhooks.lockOrganization(organizationId);
    const current = await findWebhook(tx, organizationId, id);
    return current ? change(tx, current) : err(webhookNotFound(id));
  });
}
