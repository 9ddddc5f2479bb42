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
    // Only the engine writes these, one attempt's outcome at a time: a read after the write is
    // enough, the answer being the engine's hint of how long the subscription has been failing.
    noteAttempt: (id, at, succeeded) =>
      succeeded
        ? access.map(
            subscriptions.update({ failingSince: null }, "id = ? AND failing_since IS NOT NULL", [
              id,
            ]),
            () => null,
          )
        : access.inTurn(
            () =>
              subscriptions.update({ failingSince: at }, "id = ? AND failing_since IS NULL", [id]),
            () => subscriptions.one("id = ?", [id]),
            (_, stored) => stored?.failingSince ?? null,
          ),
    disableFailing: (id, failingBefore, at) =>
      access.inTurn(
        () =>
          subscriptions.update(
            { status: "inactive", disabledReason: "failing", updatedAt: at },
            "id = ? AND status = 'active' AND failing_since IS NOT NULL AND failing_since <= ?",
            [id, failingBefore],
          ),
        () => subscriptions.one("id = ?", [id]),
        (disabled, stored) => (disabled === 1 ? stored : null),
      ),
    delete: (organizationId, id) =>
      access.map(
        subscriptions.delete("id = ? AND organization_id = ?", [id, organizationId]),
        changed,
      ),
  };
}
