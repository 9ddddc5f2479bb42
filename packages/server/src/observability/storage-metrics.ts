import {
  isErrResult,
  isStorageUnavailable,
  type Repositories,
  type Storage,
  StorageBusyError,
} from "@tidings/core";
import type { Metrics } from "./metrics.js";

type Topic = Parameters<Repositories["messages"]["insertEvent"]>[0]["topic"];

const isStorageBusy = (error: unknown): boolean =>
  error instanceof StorageBusyError ||
  (error instanceof Error && error.name === "StorageBusyError");

/**
 * Counts a failure that is the storage's, not the request's: `StorageBusyError` in
 * `tidings_storage_busy_total` and both kinds in `tidings_storage_errors_total{kind}`.
 */
function countStorageError(metrics: Metrics, error: unknown): void {
  if (isStorageBusy(error)) {
    metrics.storageBusy.inc();
    metrics.storageErrors.inc({ kind: "busy" });
  } else if (isStorageUnavailable(error)) {
    metrics.storageErrors.inc({ kind: error.reason });
  }
}

/** `fn`, counting a rejection that is the storage's (`countStorageError`). */
function countingBusy<A extends unknown[], R>(
  metrics: Metrics,
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (error) {
      countStorageError(metrics, error);
      throw error;
    }
  };
}

/** Every method of every repository (the object-valued properties), counting busy refusals. */
function busyCounted<R extends Repositories>(repositories: R, metrics: Metrics): R {
  const wrapped = { ...repositories } as Record<string, unknown>;
  for (const [name, repository] of Object.entries(repositories)) {
    if (typeof repository !== "object" || repository === null || name === "health") continue;
    const methods: Record<string, unknown> = {};
    for (const [method, fn] of Object.entries(repository)) {
      methods[method] = typeof fn === "function" ? countingBusy(metrics, fn.bind(repository)) : fn;
    }
    wrapped[name] = methods;
  }
  return wrapped as R;
}

/** The repositories, telling `onEvent` of each lifecycle event once it is written. */
const withEventTap = (
  repositories: Repositories,
  onEvent: (topic: Topic) => void,
): Repositories => ({
  ...repositories,
  messages: {
    ...repositories.messages,
    insertEvent: async (event, deliveries) => {
      await repositories.messages.insertEvent(event, deliveries);
      onEvent(event.topic);
    },
  },
});

/**
 * Storage that counts, for Prometheus, each lifecycle event written (by topic, after the commit
 * when inside a transaction, so a rolled-back one is not counted) and each operation given up
 * because the database stayed locked (`StorageBusyError`: once per call or transaction).
 */
export function withStorageMetrics(storage: Storage, metrics: Metrics): Storage {
  const count = (topic: Topic) => metrics.lifecycleEvents.inc({ topic });
  return {
    ...withEventTap(busyCounted(storage, metrics), count),
    async transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T> {
      const topics: Topic[] = [];
      let result: T;
      try {
        result = await storage.transaction((tx) =>
          fn(withEventTap(tx, (topic) => topics.push(topic))),
        );
      } catch (error) {
        countStorageError(metrics, error);
        throw error;
      }
      if (!isErrResult(result)) for (const topic of topics) count(topic);
      return result;
    },
    ping: () => storage.ping(),
    close: () => storage.close(),
    health: storage.health,
  };
}
