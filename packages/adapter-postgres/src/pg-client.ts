import { markNothingWritten } from "@tidings/core";
import { createAsyncMutex } from "@tidings/core/sql";
import { asPgFault, isQueryTimeout } from "./pg-faults.js";

/**
 * The subset of a PostgreSQL driver this adapter uses, declared here so the public API never
 * names a driver's types (Kysely does the same): `pg.Pool`, `pg.PoolClient`, `pg.Client` and
 * PGlite all fit. Values are bound as `$1, $2, …` parameters; answers are plain row objects.
 */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** One statement with its values, as a batch carries it. */
export interface PgStatement {
  text: string;
  values: readonly unknown[];
}

/**
 * Errors of batches that a statement of `before` failed, with that statement's index: the
 * statements after it, the batch's own included, never ran.
 */
export const failedBefore = new WeakMap<object, number>();

/** A connection borrowed from a pool (`pg.PoolClient`). */
export interface PgPoolConnection extends PgQueryable {
  /** Returns the connection; with an error (or `true`) the pool destroys it instead. */
  release(error?: Error | boolean): void;
  /**
   * Optional: the statements of `before` (each a single statement; their answers dropped) and
   * then `text`, sent together and answered together: one round trip instead of one each. A
   * statement runs only if every one before it succeeded, and the first failure is the batch's
   * (`failedBefore` tells one of `before`). Connections of `preparedStatements` offer it.
   */
  batch?(
    before: readonly PgStatement[],
    text: string,
    values?: unknown[],
  ): Promise<{ rows: unknown[] }>;
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
 * How long a `pg.Pool` of `boundedPoolOptions` gives a connection to be made or freed for a
 * caller, at least: an attempt abandoned while a stalled server does not answer still waits in
 * its listen queue, and each one is a backend the server starts and ends once it is back; so
 * they are given up on rarely, and a caller with less time gives up on its own (the HTTP app's
 * `storageTimeoutMs`).
 */
export const MIN_CONNECTION_TIMEOUT_MS = 10_000;

/**
 * Options for a `pg.Pool` (`new pg.Pool({ connectionString, ...boundedPoolOptions(2000) })`)
 * that bound every wait on the client's side, where a server that stopped answering (frozen,
 * or behind a partition that drops packets) cancels nothing of its own: each statement's answer
 * within `timeoutMs`, and a connection, borrowed or new, within `timeoutMs` or
 * `MIN_CONNECTION_TIMEOUT_MS`, whichever is longer. The storage destroys a connection whose
 * statement timed out instead of reusing it (the statement is still in flight on it), and the
 * server rolls that transaction back when it reads the disconnection.
 */
export const boundedPoolOptions = (
  timeoutMs: number,
): { connectionTimeoutMillis: number; query_timeout: number } => ({
  connectionTimeoutMillis: Math.max(timeoutMs, MIN_CONNECTION_TIMEOUT_MS),
  query_timeout: timeoutMs,
});

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

/** What a transaction's callback runs its statements on. */
export interface PgTransaction extends PgQueryable {
  /**
   * Present where the connection batches statements: `text`, whose answer nobody needs, goes
   * out with the transaction's next statement or with its COMMIT, in the same round trip,
   * instead of in one of its own. A failure shows at that statement (which then fails with
   * it) or fails the COMMIT, and every later statement of the transaction fails with it.
   */
  defer?(text: string, values?: unknown[]): void;
}

/** Statements that are one statement even without values, so a batch can carry them. */
const SINGLE_STATEMENT = /^\s*(?:BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b[^;]*;?\s*$/i;

const BEGIN: PgStatement = { text: "BEGIN", values: [] };

/** The failure of a transaction that never reached COMMIT, marked as having written nothing. */
const unchanged = (error: unknown): unknown => markNothingWritten(asPgFault(error, "unchanged"));

/**
 * Runs `fn` in one transaction on one connection of `client`; rolls back when it rejects. On
 * a connection that batches statements, `BEGIN` goes out with the transaction's first
 * statement, deferred statements with the next, the last of them with `COMMIT`, and a
 * transaction that sends no statement sends no `BEGIN` and no `COMMIT`.
 */
export async function runTransaction<T>(
  client: PgClient,
  fn: (tx: PgTransaction) => Promise<T>,
): Promise<T> {
  if (isTransactor(client)) return client.transaction(fn);
  const connection = await client.connect().catch((error: unknown) => {
    throw unchanged(error);
  });
  const watch = watchErrors(connection);
  const transaction = batching(connection);
  try {
    let result: T;
    try {
      result = await fn(transaction.tx);
    } catch (error) {
      await transaction.rollback();
      // A transaction that never reached COMMIT wrote nothing: PostgreSQL rolls back the
      // transaction of a connection that breaks.
      throw unchanged(error);
    }
    await transaction.commit();
    return result;
  } finally {
    watch.stop();
    connection.release(!transaction.reusable() || watch.broken());
  }
}

/** The statements of one transaction on `connection`, and its end. */
function batching(connection: PgPoolConnection): {
  tx: PgTransaction;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** Whether the connection is fit for the next borrower (its BEGIN, COMMIT and ROLLBACK ran). */
  reusable(): boolean;
} {
  const { batch } = connection;
  // A connection whose BEGIN, COMMIT or ROLLBACK failed is not fit for the next borrower.
  let reusable = true;
  /** Whether anything went out (so there is a transaction to end). */
  let sent = false;
  /** Whether BEGIN is still to be sent, or to be sent again: a failed batch may have skipped it. */
  let beginPending = true;
  /** Deferred statements, to go with the next. */
  let deferred: PgStatement[] = [];
  /** The failure of a batch that carried deferred statements: the transaction is lost. */
  let lost: { error: unknown } | undefined;
  /** The statement before, settled: statements go one at a time, in the order they were asked. */
  let turn: Promise<unknown> = Promise.resolve();
  /**
   * The timeout of a statement the server never answered (`isQueryTimeout`): it is still in
   * flight, so nothing more goes out on this connection (not even ROLLBACK, which would wait
   * behind it), and the connection is destroyed, which rolls the transaction back.
   */
  let stuck: { error: unknown } | undefined;
  /** `sent`, with a timeout noted in `stuck`. */
  const noting = async <R>(sent: Promise<R>): Promise<R> => {
    try {
      return await sent;
    } catch (error) {
      if (isQueryTimeout(error)) {
        stuck ??= { error };
        reusable = false;
      }
      throw error;
    }
  };
  const send = (text: string, values?: unknown[]) => noting(connection.query(text, values));

  /** Sends `text` with BEGIN (while pending) and the deferred statements in front of it. */
  const sendWithPending = async (text: string, values: unknown[]) => {
    if (lost !== undefined) throw lost.error;
    if (stuck !== undefined) throw stuck.error;
    if (batch === undefined) {
      if (beginPending) {
        sent = true;
        try {
          await send("BEGIN");
        } catch (error) {
          reusable = false;
          throw error;
        }
        beginPending = false;
      }
      return send(text, values);
    }
    const before = beginPending ? [BEGIN, ...deferred] : deferred;
    const carried = deferred.length > 0;
    deferred = [];
    sent = true;
    try {
      let answer: { rows: unknown[] };
      if (values.length > 0 || SINGLE_STATEMENT.test(text)) {
        answer = await noting(batch.call(connection, before, text, values));
      } else {
        // A text without values may be a script of several statements, which only the simple
        // protocol runs: what waits goes first, and the text once it ran.
        const last = before.at(-1);
        if (last !== undefined) {
          await noting(batch.call(connection, before.slice(0, -1), last.text, [...last.values]));
        }
        answer = await send(text, values);
      }
      beginPending = false;
      return answer;
    } catch (error) {
      if (carried) lost = { error };
      // BEGIN stays pending: the server skips everything after a failure, and BEGIN too when
      // the batch's own statement failed to parse (its Parse goes first), so BEGIN goes again
      // before anything else and nothing runs outside a transaction. In a transaction the
      // failure aborted, that BEGIN fails too, like every statement there.
      throw error;
    }
  };

  const tx: PgTransaction = {
    query(text, values = []) {
      const answer = turn.then(() => sendWithPending(text, values));
      turn = answer.catch(() => undefined);
      return answer;
    },
    ...(batch !== undefined && {
      defer(text: string, values: unknown[] = []) {
        // In its turn: a statement asked for before it, and still waiting, goes out first.
        turn = turn.then(() => {
          deferred.push({ text, values });
        });
      },
    }),
  };

  const control = async (text: string): Promise<void> => {
    try {
      await send(text);
    } catch (error) {
      reusable = false;
      throw error;
    }
  };

  return {
    tx,
    reusable: () => reusable,
    async rollback() {
      await turn;
      deferred = [];
      if (sent && stuck === undefined) await control("ROLLBACK").catch(() => undefined);
    },
    async commit() {
      await turn;
      if (stuck !== undefined) throw unchanged(stuck.error);
      if (lost !== undefined) {
        await control("ROLLBACK").catch(() => undefined);
        throw unchanged(lost.error);
      }
      if (!sent && deferred.length === 0) return;
      if (batch === undefined) {
        // Broken during COMMIT, the transaction may or may not have committed.
        await control("COMMIT").catch((error: unknown) => {
          throw asPgFault(error, "unknown");
        });
        return;
      }
      const before = beginPending ? [BEGIN, ...deferred] : deferred;
      deferred = [];
      sent = true;
      try {
        await noting(batch.call(connection, before, "COMMIT"));
      } catch (error) {
        if (failedBefore.has(error as object)) {
          // A statement before COMMIT failed, so COMMIT never ran: nothing was written.
          await control("ROLLBACK").catch(() => undefined);
          throw unchanged(error);
        }
        reusable = false;
        // Broken during COMMIT, the transaction may or may not have committed.
        throw asPgFault(error, "unknown");
      }
    },
  };
}
