import { AsyncLocalStorage } from "node:async_hooks";
import {
  IdempotencyTakenOverError,
  type Repositories,
  rollingBackErrors,
  type Storage,
  type StorageFaultOutcome,
  storageHealth,
} from "@tidings/core";
import type { PgClient } from "./pg-client.js";
import { isSingleConnection, runTransaction } from "./pg-client.js";
import { asPgFault } from "./pg-faults.js";
import { repositoriesOver } from "./repositories.js";
import type { Sql } from "./sql.js";
import { autocommitSql, transactionSql } from "./sql.js";
import { DEFAULT_SCHEMA, tablesIn } from "./tables.js";

export interface PostgresStorageOptions {
  /**
   * The schema holding every table (default `public`). Every statement names it explicitly,
   * so several storages on one database (one per schema) never see each other's rows.
   */
  schema?: string | undefined;
}

/**
 * Tidings storage on PostgreSQL, over a `pg.Pool` (plain queries on any connection, each
 * transaction on one borrowed connection) or a handle that runs its own transactions (PGlite,
 * or a `pg.Client` wrapped by `singleConnection`). The schema must be migrated first
 * (`await migrate(client, { schema })`). `close()` only makes the storage unusable: the
 * client is the caller's, who ends the pool (or closes PGlite) after it.
 *
 * When PostgreSQL is out of reach, full or read-only, calls reject with
 * `StorageUnavailableError` (saying whether anything may have been written) and `health` turns
 * unavailable until a statement succeeds again. A `pg.Pool` passed in gets an `error` listener,
 * so a connection that breaks while idle never ends the process; the pool replaces it.
 */
export function postgresStorage(client: PgClient, options: PostgresStorageOptions = {}): Storage {
  const tables = tablesIn(options.schema ?? DEFAULT_SCHEMA);
  const singleConnection = isSingleConnection(client);
  // Marks the async context of a transaction callback on a single connection, where a call
  // through the storage (not `tx`) would wait for the very transaction it runs in. A pool has
  // no such trap, and goes without: on Node 20 `AsyncLocalStorage` slows every promise.
  const insideTransaction = singleConnection ? new AsyncLocalStorage<true>() : null;
  let closed = false;
  const health = storageHealth();
  keepAliveOnIdleErrors(client);
  /** `call`, noted for `health`, with a storage fault turned into `StorageUnavailableError`. */
  const observed = <T>(call: Promise<T>, outcome: StorageFaultOutcome = "unknown"): Promise<T> =>
    health.observe(call, (error) => asPgFault(error, outcome));

  const assertUsable = (): void => {
    if (closed) throw new Error("The PostgreSQL storage is closed.");
    if (insideTransaction?.getStore() === true) {
      throw new Error(
        "Called the storage from inside one of its own transactions on a single connection, " +
          "which would wait for itself forever; use the `tx` repositories of the callback.",
      );
    }
  };

  const begin = <T>(fn: (sql: Sql) => Promise<T>): Promise<T> => {
    try {
      assertUsable();
    } catch (error) {
      return Promise.reject(error);
    }
    // A pool's transactions say for themselves whether the fault came before COMMIT (and that
    // is kept); a handle that runs its own transactions does not, so anything may have been
    // written.
    return observed(
      runTransaction(client, async (connection) => {
        const sql = transactionSql(tables, connection);
        try {
          const result = await (insideTransaction === null
            ? fn(sql)
            : insideTransaction.run(true, () => fn(sql)));
          // PostgreSQL turns the COMMIT of a transaction with a failed statement into a silent
          // ROLLBACK; a callback that swallowed the error must not be told its writes stuck.
          const failure = sql.failure();
          if (failure !== undefined) {
            throw new Error("A statement of the transaction failed, so nothing was written.", {
              cause: failure,
            });
          }
          return result;
        } finally {
          sql.end();
        }
      }).catch((error: unknown) => {
        throw takenOverOr(error);
      }),
      singleConnection ? "unknown" : "unchanged",
    );
  };

  const autocommit = autocommitSql(
    tables,
    (text, values) => {
      try {
        assertUsable();
      } catch (error) {
        return Promise.reject(error);
      }
      return observed(client.query(text, values));
    },
    begin,
    assertUsable,
  );

  return {
    ...repositoriesOver(autocommit),
    transaction: rollingBackErrors(<T>(fn: (tx: Repositories) => Promise<T>) =>
      begin((sql) => fn(repositoriesOver(sql))),
    ),
    async ping() {
      assertUsable();
      await observed(client.query("SELECT 1"), "unchanged");
    },
    health,
    async close() {
      closed = true;
    },
  };
}

/** The SQLSTATE `idempotency_held` raises for a key a retry took over (migration 14). */
const TAKEN_OVER = "TK001";

/**
 * A transaction failed by the recovery point's guard, as the core's error for it: the driver's
 * error, or the error it is the cause of (a failed statement the callback swallowed).
 */
function takenOverOr(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    if ((current as { code?: unknown }).code === TAKEN_OVER) return new IdempotencyTakenOverError();
    current = (current as { cause?: unknown }).cause;
  }
  return error;
}

/** Pools already given an `error` listener, so each gets one however many storages use it. */
const listenedPools = new WeakSet<object>();

/**
 * Gives a pool (anything with `on`, as `pg.Pool`) a listener for the errors of its idle
 * connections: without one, Node ends the process when the server drops an idle connection.
 * The pool has already discarded the connection and makes a new one when asked.
 */
function keepAliveOnIdleErrors(client: PgClient): void {
  const on = (client as { on?: unknown }).on;
  if (typeof on !== "function" || listenedPools.has(client)) return;
  listenedPools.add(client);
  on.call(client, "error", () => undefined);
}
