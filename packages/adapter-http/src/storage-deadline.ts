import { type Repositories, type Storage, StorageUnavailableError } from "@tidings/core";

/** What a call begun after the request's storage time ran out is refused with. */
function timeSpent(budgetMs: number): StorageUnavailableError {
  return new StorageUnavailableError("unreachable", "unchanged", {
    cause: new Error(
      `The request spent its ${budgetMs} ms for storage, which did not answer in time; nothing more was asked of it.`,
    ),
  });
}

/**
 * `repository` whose methods, once `deadline` (epoch ms) has passed, reject at once with
 * `refusal()` instead of starting: nothing is asked of storage, so nothing was written.
 */
function refusingAfter<R extends object>(
  repository: R,
  deadline: number,
  refusal: () => unknown,
): R {
  return new Proxy(repository, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        Date.now() >= deadline
          ? Promise.reject(refusal())
          : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
}

/** Every repository of `repositories` refusing after `deadline`, each wrapped once, when used. */
function repositoriesRefusingAfter<R extends object>(
  repositories: R,
  deadline: number,
  refusal: () => unknown,
  wrapStorage: boolean,
): R {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(repositories, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (wrapStorage && property === "transaction" && typeof value === "function") {
        const transaction = value as Storage["transaction"];
        return <T>(fn: (tx: Repositories) => Promise<T>): Promise<T> =>
          Date.now() >= deadline
            ? Promise.reject(refusal())
            : transaction.call<R, [(tx: Repositories) => Promise<T>], Promise<T>>(target, (tx) =>
                // A call inside the transaction after the deadline fails it: it rolls back.
                fn(repositoriesRefusingAfter(tx, deadline, refusal, false)),
              );
      }
      if (typeof value === "function") return value.bind(target);
      if (typeof value !== "object" || value === null || property === "health") return value;
      let repository = wrapped.get(property);
      if (repository === undefined) {
        repository = refusingAfter(value, deadline, refusal);
        wrapped.set(property, repository);
      }
      return repository;
    },
  });
}

/**
 * `storage` as one request sees it: once `budgetMs` has passed since the request began
 * (`startedAt`, epoch ms), no further call of it starts; each rejects at once with
 * `StorageUnavailableError` (outcome `unchanged`), which the app answers 503
 * `storage_unavailable`, and a transaction that calls it rolls back. The storage bounds each
 * of its own waits (a connection, a statement, a lock); this bounds how many of them one
 * request makes in a row, so a request that meets a database that stopped answering gives up
 * within the budget, plus the bound of the one call it was waiting on.
 */
export function storageWithDeadline(
  storage: Storage,
  startedAt: number,
  budgetMs: number,
): Storage {
  return repositoriesRefusingAfter(storage, startedAt + budgetMs, () => timeSpent(budgetMs), true);
}
