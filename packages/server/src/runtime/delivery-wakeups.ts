import type { Repositories, Storage } from "@tidings/core";

/**
 * A delivery is due at once when it is created, alone or with its event; tell whoever runs
 * the engine.
 */
const wrapRepositories = (repositories: Repositories, onInsert: () => void): Repositories => ({
  ...repositories,
  messages: {
    ...repositories.messages,
    insertEvent: async (event, deliveries) => {
      await repositories.messages.insertEvent(event, deliveries);
      if (deliveries.length > 0) onInsert();
    },
  },
  deliveries: {
    ...repositories.deliveries,
    insert: async (delivery) => {
      await repositories.deliveries.insert(delivery);
      onInsert();
    },
  },
});

/**
 * Storage that calls `onQueued` whenever a webhook delivery was written (after the commit when
 * inside a transaction), so the engine in this process starts it at once instead of at its next
 * poll. Other processes learn of it by polling, or by LISTEN/NOTIFY on PostgreSQL.
 */
export function withDeliveryWakeups(storage: Storage, onQueued: () => void): Storage {
  return {
    ...wrapRepositories(storage, onQueued),
    transaction: async (fn) => {
      let queued = false;
      const result = await storage.transaction((tx) =>
        fn(
          wrapRepositories(tx, () => {
            queued = true;
          }),
        ),
      );
      if (queued) onQueued();
      return result;
    },
    ping: () => storage.ping(),
    close: () => storage.close(),
    health: storage.health,
  };
}
