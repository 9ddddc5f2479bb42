import type { Clock, Repositories, Storage } from "../../ports.js";
import { createAsyncMutex } from "../../support/async-mutex.js";
import { rollingBackErrors } from "../../support/transaction.js";
import type { RawReaders } from "../contract/raw.js";
import { createFailureInjector } from "./failures.js";
import { rawReadersOf } from "./raw-readers.js";
import { memoryRepositories } from "./repositories.js";
import { createScope } from "./scope.js";
import type { MemoryState } from "./state.js";
import { clone, emptyState } from "./state.js";

export interface MemoryStorageOptions {
  /**
   * Accepted for symmetry with the other adapters; no method reads it today, because every
   * storage method is handed its timestamps by the core.
   */
  clock?: Clock | undefined;
}

/** The in-memory storage: the reference implementation of `Storage`, plus test hooks. */
export interface MemoryStorage extends Storage {
  /** Readers of the committed state, bypassing the repositories (the contract suite's oracle). */
  readonly raw: RawReaders;
  /**
   * Makes the next call of a repository method (e.g. `"messages.insert"`) reject with `error`,
   * inside or outside a transaction; several calls queue several failures.
   */
  failNext(method: string, error?: Error | undefined): void;
}

/**
 * An empty in-memory storage. Transactions run one at a time on a deep copy of the state that
 * replaces it only when `fn` resolves; writes outside a transaction wait for the open one.
 */
export function memoryStorage(options: MemoryStorageOptions = {}): MemoryStorage {
  void options;
  let committed: MemoryState = emptyState();
  let closed = false;
  const lock = createAsyncMutex();
  const failures = createFailureInjector();

  const enter = (method: string): void => {
    if (closed) throw new Error("memory storage is closed");
    failures.check(method);
  };

  const repositories = memoryRepositories(
    createScope({
      enter,
      state: () => committed,
      serialize: (fn) => lock.run(fn),
    }),
  );

  const transaction = <T>(fn: (tx: Repositories) => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new Error("memory storage is closed"));
    return lock.run(async () => {
      const draft = clone(committed);
      let open = true;
      const tx = memoryRepositories(
        createScope({
          enter: (method) => {
            // A repository kept past its transaction must not write into a discarded draft.
            if (!open) throw new Error(`transaction is over: ${method}`);
            enter(method);
          },
          state: () => draft,
          serialize: async (write) => write(),
        }),
      );
      try {
        const result = await fn(tx);
        committed = draft;
        return result;
      } finally {
        open = false;
      }
    });
  };

  return {
    ...repositories,
    transaction: rollingBackErrors(transaction),
    raw: rawReadersOf(() => committed),
    failNext: failures.failNext,
    async ping() {
      if (closed) throw new Error("memory storage is closed");
    },
    async close() {
      closed = true;
    },
  };
}

/** The raw readers of a memory storage (the same as `storage.raw`). */
export const memoryRawReaders = (storage: MemoryStorage): RawReaders => storage.raw;
