import type { WebhookSubscriptionRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/** Webhook subscriptions but the organization lock, which each database takes its own way. */
export function webhookRows<A extends boolean>(
  access: SqlAccess<A>,
): Styled<Omit<WebhookSubscriptionRepository, "lockOrganization">, A> {
  const subscriptions = access.table("webhookSubscriptions");
  const changed = (count: number) => count === 1;
  return {
    insert: (subscription) => subscriptions.insert(subscription),
    get: (organizationId, id) =>
      subscriptions.one("id = ? AND organization_id = ?", [id, organizationId]),
    getById: (id) => subscriptions.one("id = ?", [id]),
    list: (organizationId) =>
      subscriptions.many("organization_id = ? ORDER BY created_at, id", [organizationId]),
    // Only the columns being changed are written, so a concurrent writer's other fields stay.
    update: (organizationId, id, changes) =>
      access.map(
        subscriptions.update(changes, "id = ? AND organization_id = ?", [id, organizationId]),
        changed,
      ),
    delete: (organizationId, id) =>
      access.map(
        subscriptions.delete("id = ? AND organization_id = ?", [id, organizationId]),
        changed,
      ),
  };
}
