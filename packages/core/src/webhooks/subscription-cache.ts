import type {
  Repositories,
  Storage,
  WebhookSubscriptionRecord,
  WebhookSubscriptionRepository,
} from "../ports.js";
import { type NoticedMemoryOptions, noticedMemory } from "../support/noticed-memory.js";

/** Storage whose `webhooks.list` may answer from memory, and what keeps that memory true. */
export interface SubscriptionCache {
  storage: Storage;
  /** An organization's subscriptions changed, or with `null` any may have: forgotten at once. */
  forget(organizationId: string | null): void;
  /**
   * Whether every change to a subscription is being announced to `forget` (the change notices
   * are arriving). While not, nothing is kept.
   */
  trust(trusted: boolean): void;
}

const frozen = (list: WebhookSubscriptionRecord[]): WebhookSubscriptionRecord[] =>
  Object.freeze(
    list.map((subscription) =>
      Object.freeze({ ...subscription, topics: Object.freeze([...subscription.topics]) }),
    ),
  ) as WebhookSubscriptionRecord[];

/**
 * `storage` with each organization's subscriptions read once and then answered from memory for
 * a few seconds: every message event (a send's `message.sent`, each provider report) looks up
 * where it goes, and on PostgreSQL that read was a round trip of its own. As for API keys and
 * campaigns, memory is used only while `trust(true)` says every change is announced to `forget`
 * (on PostgreSQL, by the schema's triggers over LISTEN/NOTIFY, with the organization's id), so
 * a subscription created, changed or deleted by any process is seen here as soon as its notice
 * arrives. A change made through this storage is forgotten here before it answers, and again
 * once its transaction ends. A transaction that locks an organization's subscriptions or
 * changes them reads them from the database from then on: it decides on what is committed.
 */
export function cachingSubscriptions(
  storage: Storage,
  options: NoticedMemoryOptions = {},
): SubscriptionCache {
  const memory = noticedMemory<WebhookSubscriptionRecord[]>(options);
  const { forget } = memory;

  /**
   * `webhooks` whose changes are forgotten here when made, and noted in `changed`; its `list`
   * answers from memory until `fresh()` says to read the database.
   */
  const remembering = (
    webhooks: WebhookSubscriptionRepository,
    changed: Set<string>,
    fresh: () => boolean = () => false,
  ): WebhookSubscriptionRepository => {
    /** `write`, with the organization forgotten before it and again once it is written. */
    const changing = async <T>(organizationId: string, write: () => Promise<T>): Promise<T> => {
      changed.add(organizationId);
      forget(organizationId);
      try {
        return await write();
      } finally {
        forget(organizationId);
      }
    };
    return {
      ...webhooks,
      list: (organizationId) =>
        fresh()
          ? webhooks.list(organizationId)
          : memory
              .get(organizationId, () => webhooks.list(organizationId), frozen)
              .then(
                // An organization always has a list (maybe empty): never `null`.
                (list) => list ?? [],
              ),
      insert: (subscription) =>
        changing(subscription.organizationId, () => webhooks.insert(subscription)),
      update: (organizationId, id, changes) =>
        changing(organizationId, () => webhooks.update(organizationId, id, changes)),
      delete: (organizationId, id) =>
        changing(organizationId, () => webhooks.delete(organizationId, id)),
      async disableFailing(id, failingBefore, at) {
        const disabled = await webhooks.disableFailing(id, failingBefore, at);
        if (disabled !== null) {
          const organizationId = disabled.organizationId;
          await changing(organizationId, async () => undefined);
        }
        return disabled;
      },
      // `noteAttempt` only moves `failingSince` (the engine's bookkeeping): its notice is enough.
    };
  };

  return {
    storage: {
      ...storage,
      webhooks: remembering(storage.webhooks, new Set()),
      async transaction(fn) {
        const changed = new Set<string>();
        let locked = false;
        try {
          return await storage.transaction((tx: Repositories) => {
            const webhooks = remembering(tx.webhooks, changed, () => locked || changed.size > 0);
            return fn({
              ...tx,
              webhooks: {
                ...webhooks,
                async lockOrganization(organizationId) {
                  locked = true;
                  return tx.webhooks.lockOrganization(organizationId);
                },
              },
            });
          });
        } finally {
          // Again once the change committed: a read made before the commit saw the old rows.
          for (const organizationId of changed) forget(organizationId);
        }
      },
    },
    forget,
    trust: memory.trust,
  };
}
