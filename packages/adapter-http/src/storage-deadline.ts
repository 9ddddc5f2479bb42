import {
  type Repositories,
  type Storage,
  type StorageFaultOutcome,
  StorageUnavailableError,
} from "@tidings/core";

/** What a call the request's storage time ran out on is refused with. */
function outOfTime(budgetMs: number, outcome: StorageFaultOutcome): StorageUnavailableError {
  return new StorageUnavailableError("unreachable", outcome, {
    cause: new Error(`Storage did not answer within the request's ${budgetMs} ms for it.`),
  });
}

/** One request's time for storage: when it ends, and what a call that meets its end says. */
interface Deadline {
  at: number;
  refusal(outcome: StorageFaultOutcome): StorageUnavailableError;
  watch: DeadlineWatch;
}

/** A call in flight, and what to do if its request's time runs out first. */
interface Watched {
  at: number;
  expire(): void;
}

/**
 * The storage calls in flight of every request of one app, each expired when its request's
 * time runs out: one timer for all of them, set for the soonest end, instead of a timer (and a
 * race of two promises) for every call. A send makes some ten calls, so that was ten timers
 * set and cleared a send.
 */
export interface DeadlineWatch {
  add(call: Watched): void;
  delete(call: Watched): void;
}

/** A watch of its own, for one app (`createHttpApp`), or one request where none is given. */
export function deadlineWatch(): DeadlineWatch {
  const pending = new Set<Watched>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  const schedule = (at: number) => {
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(expireDue, Math.max(0, at - Date.now()));
  };
  function expireDue() {
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const call of pending) {
      if (call.at <= now) {
        pending.delete(call);
        call.expire();
      } else {
        next = Math.min(next, call.at);
      }
    }
    if (next !== Number.POSITIVE_INFINITY) schedule(next);
  }
  return {
    add(call) {
      pending.add(call);
      // Only ever brought forward: a timer overdue (the event loop was blocked) runs in its
      // next turn of timers and expires every call due by then.
      if (call.at < timerAt) schedule(call.at);
    },
    delete(call) {
      pending.delete(call);
      if (pending.size === 0 && timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
        timerAt = Number.POSITIVE_INFINITY;
      }
    },
  };
}

/**
 * `call()`, or a rejection with `deadline`'s refusal once it passes first: at once, asking
 * nothing of storage, when it has passed already (nothing was written); else when it passes
 * while `call` runs, saying `outcome()` of what that call may have written. Storage goes on
 * with an abandoned call, bounded by its own timeouts; its outcome is ignored.
 */
function beforeDeadline<T>(
  deadline: Deadline,
  call: () => Promise<T>,
  outcome: () => StorageFaultOutcome,
): Promise<T> {
  if (deadline.at <= Date.now()) return Promise.reject(deadline.refusal("unchanged"));
  return new Promise<T>((resolve, reject) => {
    const watched: Watched = {
      at: deadline.at,
      expire: () => reject(deadline.refusal(outcome())),
    };
    let running: Promise<T>;
    try {
      running = call();
    } catch (error) {
      reject(error);
      return;
    }
    deadline.watch.add(watched);
    // An abandoned call's own outcome, later, is nobody's to hear: the promise is settled.
    Promise.resolve(running).then(
      (value) => {
        deadline.watch.delete(watched);
        resolve(value);
      },
      (error: unknown) => {
        deadline.watch.delete(watched);
        reject(error);
      },
    );
  });
}

/** The repository methods that only read (the ports name every read so): they write nothing. */
const READS = /^(?:get|list|find|count)(?:[A-Z]|$)/;

/** `repository` whose methods each end by `deadline`, saying what a cut-off call may have done. */
function bounded<R extends object>(repository: R, deadline: Deadline, inTransaction: boolean): R {
  return new Proxy(repository, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      // Inside a transaction, the cut-off call fails the callback, so nothing commits; a write
      // on its own may have been written before storage stopped answering.
      const outcome: StorageFaultOutcome =
        inTransaction || (typeof property === "string" && READS.test(property))
          ? "unchanged"
          : "unknown";
      return (...args: unknown[]) =>
        beforeDeadline(
          deadline,
          () => method.apply(target, args),
          () => outcome,
        );
    },
  });
}

/** Every repository of `repositories` ending by `deadline`, each wrapped once, when used. */
function boundedRepositories<R extends object>(
  repositories: R,
  deadline: Deadline,
  inTransaction: boolean,
): R {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(repositories, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (!inTransaction && property === "transaction" && typeof value === "function") {
        const transaction = value as Storage["transaction"];
        return <T>(fn: (tx: Repositories) => Promise<T>): Promise<T> => {
          let committing = false;
          return beforeDeadline(
            deadline,
            () =>
              transaction.call<R, [(tx: Repositories) => Promise<T>], Promise<T>>(
                target,
                async (tx) => {
                  // A callback still running at the deadline fails, so the transaction rolls
                  // back instead of committing; any call it makes after that is refused.
                  const result = await beforeDeadline(
                    deadline,
                    () => fn(boundedRepositories(tx, deadline, true)),
                    () => "unchanged",
                  );
                  committing = true;
                  return result;
                },
              ),
            // Cut off during its COMMIT, it may or may not have committed.
            () => (committing ? "unknown" : "unchanged"),
          );
        };
      }
      if (typeof value === "function") return value.bind(target);
      if (typeof value !== "object" || value === null || property === "health") return value;
      let repository = wrapped.get(property);
      if (repository === undefined) {
        repository = bounded(value, deadline, inTransaction);
        wrapped.set(property, repository);
      }
      return repository;
    },
  });
}

/**
 * `storage` as one request sees it: every call of it ends within `budgetMs` of the request's
 * start (`startedAt`, epoch ms), all of them together. A call the time runs out on, or one begun
 * after, rejects with `StorageUnavailableError` (answered 503 `storage_unavailable`), saying
 * whether anything may have been written: nothing when it never started, or when a transaction
 * was cut off before its COMMIT (its callback fails, so it rolls back); perhaps, for a call
 * outside a transaction or a transaction cut off during its COMMIT. Storage goes on with what
 * was cut off, bounded by its own timeouts (a connection's, a statement's, a lock's).
 */
export function storageWithDeadline(
  storage: Storage,
  startedAt: number,
  budgetMs: number,
  watch: DeadlineWatch = deadlineWatch(),
): Storage {
  const deadline: Deadline = {
    at: startedAt + budgetMs,
    refusal: (outcome) => outOfTime(budgetMs, outcome),
    watch,
  };
  return boundedRepositories(storage, deadline, false);
}
