import { createAsyncMutex } from "@tidings/core/sql";
import { asPgFault } from "./pg-faults.js";

/**
 * The subset of a PostgreSQL driver this adapter uses, declared here so the public API never
 * names a driver's types (Kysely does the same): `pg.Pool`, `pg.PoolClient`, `pg.Client` and
 * PGlite all fit. Values are bound as `$1, $2, …` parameters; answers are plain row objects.
 */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A connection borrowed from a pool (`pg.PoolClient`). */
export interface PgPoolConnection extends PgQueryable {
  /** Returns the connection; with an error (or `true`) the pool destroys it instead. */
  release(error?: Error | boolean): void;
  /**
   * Optional: `BEGIN` and then `text`, sent together and answered together (one round trip
   * instead of two). `text` runs only if `BEGIN` succeeded, so it is never outside the
   * transaction. Connections of `preparedStatements` offer it.
   */
  beginWith?(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /**
   * Optional (`pg.PoolClient` has it): listens for the connection's `error` event, which a
   * driver emits when the connection breaks; with no listener Node ends the process.
   */
  on?(event: "error", listener: (error: Error) => void): unknown;
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
}

/** What `watchErrors` tells of a borrowed connection. */
export interface ConnectionWatch {
  /** Whether the connection emitted `error` since it was borrowed. */
  broken(): boolean;
  /** Stops listening; call it when the connection is given back. */
  stop(): void;
}

/**
 * Listens for `error` on a borrowed connection for as long as it is borrowed. `pg.Pool` listens
 * only while a connection is idle, so a connection that breaks (the server restarts, an
 * administrator terminates the backend) while a query runs on it would otherwise emit an
 * `error` nobody handles, and Node would end the process. The query in flight fails on its own;
 * the connection, marked broken, is destroyed when given back.
 */
export function watchErrors(connection: PgPoolConnection): ConnectionWatch {
  let broken = false;
  const listener = () => {
    broken = true;
  };
  connection.on?.("error", listener);
  return {
    broken: () => broken,
    stop: () => {
      connection.removeListener?.("error", listener);
    },
  };
}

/**
 * A pool of connections (`pg.Pool`): plain queries run on any connection, and a transaction
 * borrows one connection with `connect()` for its whole length.
 */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolConnection>;
}

/**
 * A handle that runs a transaction itself and keeps every other query out while it runs:
 * PGlite (`db.transaction(async (tx) => …)`), or one connection wrapped by `singleConnection`.
 */
export interface PgTransactor extends PgQueryable {
  transaction<T>(fn: (tx: PgQueryable) => Promise<T>): Promise<T>;
}

/**
 * What `postgresStorage` and `migrate` accept: a pool (`pg.Pool`), or a handle that runs its
 * own transactions (PGlite; a lone `pg.Client` wrapped with `singleConnection`).
 */
export type PgClient = PgPool | PgTransactor;

const isTransactor = (client: PgClient): client is PgTransactor =>
  typeof (client as Partial<PgTransactor>).transaction === "function";

/** Whether transactions and plain queries share one connection (and so must take turns). */
export const isSingleConnection = (client: PgClient): boolean => isTransactor(client);

/**
 * Makes one connection (a connected `pg.Client`) usable as a `PgClient`: every query and every
 * transaction takes its turn, because a statement sent while another caller's transaction is
 * open on the same connection would silently become part of it.
 */
export function singleConnection(connection: PgQueryable): PgTransactor {
  const mutex = createAsyncMutex();
  return {
    query: (text, values) => mutex.run(() => connection.query(text, values)),
    transaction: (fn) => mutex.run(() => inTransaction(connection, fn)),
  };
}

/** BEGIN, `fn`, COMMIT on a connection nobody else is using; ROLLBACK when `fn` rejects. */
async function inTransaction<T>(
  connection: PgQueryable,
  fn: (tx: PgQueryable) => Promise<T>,
): Promise<T> {
  await connection.query("BEGIN");
  let result: T;
  try {
    result = await fn(connection);
  } catch (error) {
    await connection.query("ROLLBACK");
    throw error;
  }
  await connection.query("COMMIT");
  return result;
}

/**
 * Runs `fn` in one transaction on one connection of `client`; rolls back when it rejects. On
 * a connection that offers `beginWith`, `BEGIN` goes out with the transaction's first
 * statement, and a transaction that sends no statement sends no `BEGIN` and no `COMMIT`.
 */
export async function runTransaction<T>(
  client: PgClient,
  fn: (tx: PgQueryable) => Promise<T>,
): Promise<T> {
  if (isTransactor(client)) return client.transaction(fn);
  const connection = await client.connect().catch((error: unknown) => {
    throw asPgFault(error, "unchanged");
  });
  const watch = watchErrors(connection);
  // A connection whose BEGIN, COMMIT or ROLLBACK failed is not fit for the next borrower.
  let reusable = true;
  const control = async (text: string): Promise<void> => {
    try {
      await connection.query(text);
    } catch (error) {
      reusable = false;
      throw error;
    }
  };
  const { beginWith } = connection;
  // Settles `true` once BEGIN is known to have run: the first statement, sent with it,
  // succeeded (or a BEGIN sent again did).
  let opened: Promise<boolean> | undefined;
  const tx: PgQueryable =
    beginWith === undefined
      ? connection
      : {
          query: async (text, values) => {
            if (opened === undefined) {
              const answer = beginWith.call(connection, text, values);
              opened = answer.then(
                () => true,
                () => false,
              );
              return answer;
            }
            // Whatever is asked meanwhile waits, so nothing overtakes BEGIN.
            if (!(await opened)) {
              // The first statement failed, and BEGIN may have gone with it (when the server
              // could not parse the statement, it skipped both): BEGIN again before anything
              // else, so nothing runs outside a transaction. In the transaction the failure
              // aborted, this BEGIN fails too, like every statement there.
              const begin = connection.query("BEGIN");
              opened = begin.then(
                () => true,
                () => false,
              );
              await begin;
            }
            return connection.query(text, values);
          },
        };
  const begun = () => beginWith === undefined || opened !== undefined;
  try {
    if (beginWith === undefined) await control("BEGIN");
    let result: T;
    try {
      result = await fn(tx);
    } catch (error) {
      if (begun()) await control("ROLLBACK").catch(() => undefined);
      // A transaction that never reached COMMIT wrote nothing: PostgreSQL rolls back the
      // transaction of a connection that breaks.
      throw asPgFault(error, "unchanged");
    }
    if (begun()) {
      // Broken during COMMIT, the transaction may or may not have committed.
      await control("COMMIT").catch((error: unknown) => {
        throw asPgFault(error, "unknown");
      });
    }
    return result;
  } finally {
    watch.stop();
    connection.release(!reusable || watch.broken());
  }
}
