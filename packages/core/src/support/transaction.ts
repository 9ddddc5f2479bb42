import type { Repositories } from "../ports.js";
import { isErrResult } from "./err-result.js";
import { inSpan } from "./tracing.js";

export { isErrResult };

/** A storage's own `transaction`: commits when `fn` resolves, rolls back when it rejects. */
export type Transact = <T>(fn: (tx: Repositories) => Promise<T>) => Promise<T>;

/** Carries an error `Result` out of a transaction callback through the storage's rollback path. */
class ErrResultRollback {
  constructor(readonly result: unknown) {}
}

/**
 * Wraps a storage's `transact` so a callback that resolves to an error `Result` rolls back like
 * one that rejects, and the transaction resolves to that `Result`. Use cases return their
 * expected failures as `err(…)` from inside transactions; without this, whatever they wrote
 * before deciding to fail would commit. Every storage builds its `transaction` with it, so
 * every transaction of a traced operation is also a `storage.transaction` span (waiting for the
 * lock included).
 */
export function rollingBackErrors(transact: Transact): Transact {
  return <T>(fn: (tx: Repositories) => Promise<T>): Promise<T> =>
    inSpan(
      "storage.transaction",
      {},
      async () => {
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
      },
      { onlyUnderAnother: true },
    );
}
