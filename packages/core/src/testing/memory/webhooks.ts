import type { WebhookSubscriptionRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { clone, ms, ofOrganization, ownedBy, storeNew } from "./state.js";

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
        if (changes.disabledReason !== undefined) next.disabledReason = changes.disabledReason;
        if (changes.failingSince !== undefined) next.failingSince = changes.failingSince;
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
    noteAttempt: (id, at, succeeded) =>
      scope.write("webhooks.noteAttempt", (s) => {
        const stored = s.webhooks.get(id);
        if (stored === undefined) return null;
        const failingSince = succeeded ? null : (stored.failingSince ?? at);
        s.webhooks.set(id, { ...stored, failingSince });
        return failingSince;
      }),
    disableFailing: (id, failingBefore, at) =>
      scope.write("webhooks.disableFailing", (s) => {
        const stored = s.webhooks.get(id);
        const { failingSince } = stored ?? {};
        if (stored?.status !== "active" || failingSince == null) return null;
        if (ms(failingSince) > ms(failingBefore)) return null;
        const disabled = {
          ...stored,
          status: "inactive" as const,
          disabledReason: "failing" as const,
          updatedAt: at,
        };
        s.webhooks.set(id, disabled);
        return disabled;
      }),
    // Transactions already run one at a time in memory, so holding the lock is all it takes.
    lockOrganization: (_organizationId) =>
      scope.write("webhooks.lockOrganization", () => undefined),
  };
}
