import type { RawReaders } from "../contract/raw.js";
import type { MemoryState } from "./state.js";
import { clone, idempotencyKey, oldestCreatedFirst, oldestFirst } from "./state.js";

/** Raw readers over the committed state: every organization, inactive rows included. */
export function rawReadersOf(committed: () => MemoryState): RawReaders {
  const read = async <T>(fn: (s: MemoryState) => T): Promise<T> => clone(fn(committed()));
  return {
    profile: (id) => read((s) => s.profiles.get(id) ?? null),
    memberships: (profileId) => read((s) => s.memberships.filter((m) => m.profileId === profileId)),
    consentChanges: (profileId) =>
      read((s) =>
        oldestFirst(
          s.consentChanges.filter((c) => c.profileId === profileId),
          (c) => c.changedAt,
          (c) => c.id,
        ),
      ),
    campaign: (id) => read((s) => s.campaigns.get(id) ?? null),
    apiKey: (id) => read((s) => s.apiKeys.get(id) ?? null),
    message: (id) => read((s) => s.messages.get(id) ?? null),
    events: (messageId) =>
      read((s) => oldestCreatedFirst(s.events.filter((e) => e.messageId === messageId))),
    webhook: (id) => read((s) => s.webhooks.get(id) ?? null),
    delivery: (id) => read((s) => s.deliveries.get(id) ?? null),
    deliveries: () => read((s) => oldestCreatedFirst(s.deliveries.values())),
    attempts: (deliveryId) =>
      read((s) =>
        s.attempts.filter((a) => a.deliveryId === deliveryId).sort((a, b) => a.attempt - b.attempt),
      ),
    idempotency: (apiKeyId, endpoint, key) =>
      read((s) => s.idempotency.get(idempotencyKey(apiKeyId, endpoint, key)) ?? null),
  };
}
