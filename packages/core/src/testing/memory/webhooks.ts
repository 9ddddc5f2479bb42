import type { WebhookSubscriptionRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { clone, ofOrganization, ownedBy, storeNew } from "./state.js";

/** Webhook subscriptions in memory. */
export function memoryWebhooks(scope: MemoryScope): WebhookSubscriptionRepository {
  return {
    insert: (subscription) =>
      scope.write("webhooks.insert", (s) =>
        storeNew(s.webhooks, subscription.id, subscription, "webhook subscription"),
      ),
    get: (organizationId, id) =>
      scope.read("webhooks.get", (s) => ownedBy(s.webhooks.get(id), organizationId)),
    getById: (id) => scope.read("webhooks.getById", (s) => s.webhooks.get(id) ?? null),
    list: (organizationId) =>
      scope.read("webhooks.list", (s) => ofOrganization(s.webhooks.values(), organizationId)),
    update: (organizationId, id, changes) =>
      scope.write("webhooks.update", (s) => {
        const stored = s.webhooks.get(id);
        if (stored?.organizationId !== organizationId) return false;
        const next = { ...stored, updatedAt: changes.updatedAt };
        // Only the fields the caller changes: the others keep what is stored now.
        if (changes.url !== undefined) next.url = changes.url;
        if (changes.topics !== undefined) next.topics = clone(changes.topics);
        if (changes.status !== undefined) next.status = changes.status;
        if (changes.description !== undefined) next.description = changes.description;
        if (changes.secretSealed !== undefined) next.secretSealed = changes.secretSealed;
        s.webhooks.set(id, next);
        return true;
      }),
    delete: (organizationId, id) =>
      scope.write("webhooks.delete", (s) => {
        const stored = s.webhooks.get(id);
        if (stored?.organizationId !== organizationId) return false;
        s.webhooks.delete(id);
        return true;
      }),
    // Transactions already run one at a time in memory, so holding the lock is all it takes.
    lockOrganization: (_organizationId) =>
      scope.write("webhooks.lockOrganization", () => undefined),
  };
}
