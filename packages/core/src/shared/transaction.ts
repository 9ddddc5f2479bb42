import type { Repositories } from "../ports.js";

/** A storage's own `transaction`: commits when `fn` resolves, rolls back when it rejects. */
export type Transact = <T>(fn: (tx: Repositories) => Promise<T>) => Promise<T>;

/**
 * Whether `value` is an error `Result`. Duck-typed on `isErr()` so a `Result` made by another
 * copy of neverthrow (an embedder's own) counts too.
 */
export function isErrResult(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const isErr = (value as { isErr?: unknown }).isErr;
  return typeof isErr === "function" && isErr.call(value) === true;
}

/** Carries an error `Result` out of a transaction callback through the storage's rollback path. */
class ErrResultRollback {
  constructor(readonly result: unknown) {}
}

/**
 * Wraps a storage's `transact` so a callback that resolves to an error `Result` rolls back like
 * one that rejects, and the transaction resolves to that `Result`. Use cases return their
 * expected failures as `err(…)` from inside transactions; without this, whatever they wrote
 * before deciding to fail would commit. Every storage builds its `transaction` with it.
 */
export function rollingBackErrors(transact: Transact): Transact {
  return async <T>(fn: (tx: Repositories) => Promise<T>): Promise<T> => {
    try {
      return await transact(async (tx) => {
        const result = await fn(tx);
        if (isErrResult(result)) throw new ErrResultRollback(result);
        return result;
      });
    } catch (error) {
      if (error instanceof ErrResultRollback) return error.result as T;
      throw error;
    }
  };
}
