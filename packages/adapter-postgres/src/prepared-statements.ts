import { createHash } from "node:crypto";
import { ONE_PLAN } from "@tidings/core/sql";
import {
  failedBefore,
  type PgPool,
  type PgPoolConnection,
  type PgStatement,
  watchErrors,
} from "./pg-client.js";

/**
 * A query as `pg` takes it with a statement name: the server parses the text once per
 * connection and binds new values to it from then on.
 */
export interface PgNamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

/** A connection that runs named statements (`pg.PoolClient`). */
export interface PgNamingConnection extends PgPoolConnection {
  /** A query object that writes its own protocol messages (`pg`'s `Submittable`). */
  query<T extends PgSubmittable>(submittable: T): T;
  query(text: string | PgNamedQuery, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A query object that writes its own protocol messages (`pg`'s `Submittable`). */
export interface PgSubmittable {
  submit(connection: never): void;
}

/** A pool that runs named statements (`pg.Pool`). */
export interface PgNamingPool extends PgPool {
  query(text: string | PgNamedQuery, values?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<PgNamingConnection>;
}

/**
 * Statements that run unnamed, so PostgreSQL plans every call for its values. After five calls
 * it may keep one generic plan for a named statement, made without its values, when that plan
 * looks no costlier; where its estimate of the rows is a guess, that plan can be far worse.
 * - A list read with `LIMIT $n`: walking the `seq` index backwards and stopping after n rows
 *   looks cheap, but for a small organization in a large table it reads almost every row
 *   before it finds n of that organization's; with the values the planner takes the
 *   organization's index.
 * - A `GROUP BY` over an organization's rows: a scan chosen for a large organization is kept
 *   for a small one.
 * - A join (a contact list's members with their profiles): a hash join chosen for a large list
 *   is kept for a small one, which reads the organization's profiles instead of a few rows.
 * - An array of values (`unnest($n)`, `= ANY($n)`): without the array the planner guesses a
 *   hundred elements, and the webhook engine's record of a pass of eight joined the whole
 *   deliveries table by hash on every pass (its drain on PostgreSQL fell from about 1,300 to
 *   under 300 deliveries a second).
 * A statement that begins with `ONE_PLAN` is named all the same: its join pairs one row found
 * by a unique key with a single row (a send's recipient and the number's suppressions), which
 * has one good plan, and planning it on every call cost a send some 250 µs of the database's
 * time.
 * Everything else (reads and changes by key, inserts, the rate-limit function) has one good
 * plan whatever its values, and planning it again on every call was a large part of what a
 * request cost the database. The rate-limit function's own statements follow the same
 * setting (PL/pgSQL keeps their plans), and its index on the key and time serves any values.
 */
const PLANNED_PER_CALL =
  /\bLIMIT\s+\$\d|\bGROUP\s+BY\b|\bunnest\s*\(|\b(?:ANY|ALL)\s*\(\s*\$\d|\bJOIN\b/i;

/** SQLSTATE of "cached plan must not change result type". */
const STALE_PLAN = "0A000";

/**
 * SQLSTATEs after which a connection's session is not to be trusted again though the server
 * only refused a statement: its named statements (a stale plan, one that no longer exists,
 * one already there) or its transaction (class 25: one left open and failed).
 */
const UNFIT_AFTER = /^(?:0A000|26000|42P05|25...)$/;

/**
 * Whether `error` is the server refusing one statement at severity ERROR, after which its
 * session is ready for the next: not FATAL (the server ends the session), not an error of the
 * driver's own (no SQLSTATE), not one of `UNFIT_AFTER`.
 */
function refusedStatement(error: unknown): boolean {
  const { severity, code } = (error ?? {}) as { severity?: unknown; code?: unknown };
  return severity === "ERROR" && typeof code === "string" && !UNFIT_AFTER.test(code);
}

/** Options of `preparedStatements`. */
export interface PreparedStatementsOptions {
  /**
   * How many distinct statements get a name (default 1,000); any beyond run unnamed, so a
   * caller that builds many texts cannot grow each connection's statements without end.
   */
  maxStatements?: number | undefined;
}

/**
 * `pool` (a `pg.Pool`) with statements that take values run as named prepared statements:
 * each connection parses a text once instead of on every call, Node sends no Parse message for
 * it again, and PostgreSQL may keep its plan. A name is a hash of the text, so the same text
 * always has the same name. Statements without values (transaction control, migrations'
 * scripts of several statements) run as they are, and so do lists, aggregates, joins and
 * statements over arrays of values, which are planned for their values on every call (see
 * `PLANNED_PER_CALL`).
 *
 * A named statement whose result columns change under it (a column's type altered by another
 * process's migration) fails with "cached plan must not change result type" (SQLSTATE 0A000);
 * Tidings' statements name their columns, so added columns and indexes never do this. A
 * borrowed connection that saw that error is destroyed on release instead of returned, so the
 * statement is prepared afresh on the next connection instead of failing there again.
 */
export function preparedStatements(
  pool: PgNamingPool,
  options: PreparedStatementsOptions = {},
): PgPool {
  const max = options.maxStatements ?? 1000;
  const names = new Map<string, string>();
  /**
   * `text`'s statement name; `undefined` when it is planned per call, or once every name is
   * taken (it then runs unnamed).
   */
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < max) {
      // "": planned per call, remembered so the text is looked at once.
      name =
        PLANNED_PER_CALL.test(text) && !text.startsWith(ONE_PLAN)
          ? ""
          : `tidings_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
      names.set(text, name);
    }
    return name === "" ? undefined : name;
  };
  /** Runs `text` on `inner`, named when it takes values and a name is still free. */
  const send = (inner: PgNamingConnection, text: string, values?: unknown[]) => {
    if (values === undefined || values.length === 0) return inner.query(text, values);
    const name = nameOf(text);
    return name === undefined ? inner.query(text, values) : inner.query({ name, text, values });
  };
  const connection = (inner: PgNamingConnection): PgPoolConnection => {
    let stale = false;
    const noticeStale = (error: unknown): never => {
      const code = (error as { code?: unknown } | null)?.code;
      // A statement whose result type changed, or an error of the driver's own (a value it
      // could not send makes pg close the statement while it still counts it as prepared):
      // either way this connection's prepared statements are not to be trusted again.
      if (code === STALE_PLAN || code === undefined) stale = true;
      throw error;
    };
    const Batch = batchQueryOf(inner);
    const watch = watchErrors(inner);
    return {
      query: (text, values) => send(inner, text, values).catch(noticeStale),
      release: (error) => {
        watch.stop();
        inner.release(error || stale || watch.broken());
      },
      ...(Batch !== null && {
        batch: async (before: readonly PgStatement[], text: string, values: unknown[] = []) => {
          return new Promise<{ rows: unknown[] }>((resolve, reject) => {
            inner.query(
              new Batch({
                before: before.map((statement) => ({
                  name: nameOf(statement.text),
                  text: statement.text,
                  values: [...statement.values],
                })),
                name: values.length === 0 ? undefined : nameOf(text),
                text,
                values,
                callback: (error, answer) => (error ? reject(error) : resolve(answer)),
              }),
            );
          }).catch((error: unknown) => {
            // A name whose Parse the failure skipped would be taken as prepared from then on.
            if (unsureParses.has(error as object)) stale = true;
            return noticeStale(error);
          });
        },
      }),
    };
  };
  return {
    // As pg.Pool's own query does: borrow, run, give back; but one statement with values that
    // the server refused (a unique violation, a lock timeout) leaves its connection fit for
    // the next. A text without values may be a script (`BEGIN; …`) that left a transaction
    // open, so its failure destroys the connection, as does a broken one or an unfit session.
    query: async (text, values) => {
      const inner = await pool.connect();
      const watch = watchErrors(inner);
      try {
        const answer = await send(inner, text, values);
        watch.stop();
        inner.release(watch.broken());
        return answer;
      } catch (error) {
        watch.stop();
        const fit = (values?.length ?? 0) > 0 && refusedStatement(error) && !watch.broken();
        inner.release(fit ? false : (error as Error));
        throw error;
      }
    },
    connect: async () => connection(await pool.connect()),
  };
}

/** What `Batch` uses of `pg`'s protocol connection (`pg/lib/connection.js`). */
interface PgProtocolConnection {
  parse(message: { text: string; name: string; types: unknown[] }): void;
  describe(message: { type: string; name: string }): void;
  sync(): void;
  /** Names whose Parse is on its way, by name (`pg` keeps it so it parses a name once). */
  submittedNamedStatements: Record<string, string>;
  /** Names the server has answered ParseComplete for. */
  parsedStatements: Record<string, string>;
}

/** Whether `error` is the server's ErrorResponse (pg's `DatabaseError` has its severity). */
const isServerError = (error: unknown): boolean =>
  typeof (error as { severity?: unknown } | null)?.severity === "string";

/** What `Batch` passes to, and overrides of, `pg`'s JavaScript `Query` class. */
interface PgQuery extends PgSubmittable {
  name?: string | undefined;
  text: string;
  types?: unknown[] | undefined;
  callback?: ((error: Error | null, answer: { rows: unknown[] }) => void) | undefined;
  requiresPreparation(): boolean;
  hasBeenParsed(connection: PgProtocolConnection): boolean;
  prepare(connection: PgProtocolConnection): void;
  handleRowDescription(message: unknown): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: PgProtocolConnection): void;
  handleEmptyQuery(connection: PgProtocolConnection): void;
  handleError(error: Error, connection: PgProtocolConnection): void;
  handleReadyForQuery(connection: PgProtocolConnection): void;
}

interface PgQueryConfig {
  name: string | undefined;
  text: string;
  values: unknown[];
  callback?: (error: Error | null, answer: { rows: unknown[] }) => void;
}

interface BatchConfig extends PgQueryConfig {
  /** Sent first, in order; their answers are dropped. */
  before: readonly PgQueryConfig[];
}

type PgQueryClass = new (config: PgQueryConfig) => PgQuery;
type BatchClass = new (config: BatchConfig) => PgQuery;

/**
 * Errors of batches that failed before every Parse they carried was answered: a name whose
 * Parse the server skipped is still counted by `pg` as on its way, so the connection must not
 * be used again.
 */
const unsureParses = new WeakSet<object>();

/**
 * A `Query` class for `inner` that sends statements before its own, under the same Sync, and
 * answers only its own: Parse of its own statement (when the name is new), then for each
 * statement before it Parse (when new), Bind and Execute, then its own Bind, Describe, Execute
 * and one Sync, answered by one ReadyForQuery. One round trip however many statements; the
 * server skips everything after the first that fails, and that failure is the batch's. `pg`
 * takes a query object with a `submit` method as it is (as `pg-cursor` does); `null` when
 * `inner` is not `pg`'s JavaScript client, whose `Query` this extends (the native client has
 * another).
 */
function batchQueryOf(inner: PgNamingConnection): BatchClass | null {
  // A pipelining client may still be waiting for an earlier Parse of the same name, which a
  // batch would not send again, so the name could be counted as prepared when it is not.
  if ((inner as { pipeline?: unknown }).pipeline === true) return null;
  const Query = (inner.constructor as { Query?: unknown } | undefined)?.Query;
  if (typeof Query !== "function") return null;
  const known = batchQueries.get(Query);
  if (known !== undefined) return known;
  const prototype = Query.prototype as Partial<PgQuery> | undefined;
  for (const method of [
    "prepare",
    "hasBeenParsed",
    "requiresPreparation",
    "handleRowDescription",
    "handleDataRow",
    "handleCommandComplete",
    "handleEmptyQuery",
    "handleError",
    "handleReadyForQuery",
  ] as const) {
    if (typeof prototype?.[method] !== "function") return null;
  }
  const Base = Query as PgQueryClass;
  const Batch = class extends Base {
    readonly #before: PgQuery[];
    /** How many statements before this one have completed. */
    #completed = 0;
    /** The index of the last statement before this one whose Parse this batch sends. */
    #lastParse = -1;
    /** Whether the batch failed. */
    #failed = false;

    constructor(config: BatchConfig) {
      super(config);
      this.#before = config.before.map(
        (statement) =>
          new Base({
            ...statement,
            // Only a value `pg` cannot send fails here, while it is sent (see `prepare`).
            callback: (error) => {
              if (error !== null) this.#unsendable ??= error;
            },
          }),
      );
    }

    /** An error of sending a statement before this one (a value `pg` could not map). */
    #unsendable: Error | undefined;

    // Every statement of a batch goes through the extended protocol, even one without values.
    override requiresPreparation(): boolean {
      return true;
    }

    override prepare(connection: PgProtocolConnection): void {
      // This statement's own Parse goes first: `pg` counts the first ParseComplete of a batch
      // as this statement's, whichever statement it answers.
      if (this.name !== undefined && !this.hasBeenParsed(connection)) {
        connection.parse({ text: this.text, name: this.name, types: this.types ?? [] });
        connection.submittedNamedStatements[this.name] = this.text;
      }
      // Each statement before goes out as `pg` sends a statement (its values mapped as pg
      // maps them), without its Describe and Sync.
      const quiet = Object.create(connection, {
        describe: { value: () => undefined },
        sync: { value: () => undefined },
      }) as PgProtocolConnection;
      for (const [index, query] of this.#before.entries()) {
        if (query.name !== undefined && !query.hasBeenParsed(connection)) this.#lastParse = index;
        query.prepare(quiet);
        if (this.#unsendable !== undefined) {
          // What went out runs up to this Sync and the batch fails with the error, which
          // `pg` hands on at ReadyForQuery; nothing after the statement is sent.
          (this as unknown as { _canceledDueToError: Error })._canceledDueToError =
            this.#unsendable;
          failedBefore.set(this.#unsendable, index);
          this.#failed = true;
          unsureParses.add(this.#unsendable);
          connection.sync();
          return;
        }
      }
      super.prepare(connection);
    }

    override handleRowDescription(message: unknown): void {
      if (this.#completed === this.#before.length) super.handleRowDescription(message);
    }

    override handleDataRow(message: unknown): void {
      if (this.#completed === this.#before.length) super.handleDataRow(message);
    }

    override handleCommandComplete(message: unknown, connection: PgProtocolConnection): void {
      if (this.#completed === this.#before.length) {
        super.handleCommandComplete(message, connection);
      } else {
        this.#completed += 1;
      }
    }

    override handleEmptyQuery(connection: PgProtocolConnection): void {
      if (this.#completed === this.#before.length) super.handleEmptyQuery(connection);
      else this.#completed += 1;
    }

    override handleError(error: Error, connection: PgProtocolConnection): void {
      this.#failed = true;
      // Only the server's own answer proves the statements after the failed one never ran: it
      // answers in order, so an ErrorResponse before a statement's CommandComplete means the
      // rest was skipped. A connection lost on the way proves nothing (the server may have run
      // the whole batch, COMMIT included, before the answer was lost).
      if (
        this.#completed < this.#before.length &&
        isServerError(error) &&
        !failedBefore.has(error)
      ) {
        failedBefore.set(error, this.#completed);
      }
      if (this.#lastParse >= this.#completed) unsureParses.add(error);
      super.handleError(error, connection);
    }

    override handleReadyForQuery(connection: PgProtocolConnection): void {
      if (!this.#failed) {
        // `pg` records only a batch's own statement as parsed; the names parsed before it are
        // as prepared now, and must not be parsed again if their Parse is ever forgotten.
        for (const query of this.#before) {
          if (query.name === undefined) continue;
          connection.parsedStatements[query.name] = query.text;
          delete connection.submittedNamedStatements[query.name];
        }
      }
      super.handleReadyForQuery(connection);
    }
  };
  batchQueries.set(Query, Batch);
  return Batch;
}

/** `Batch` classes by the `Query` class they extend: one each, not one per connection. */
const batchQueries = new WeakMap<object, BatchClass>();
