import type { SqlAccess } from "@tidings/core/sql";

/**
 * The small subset of better-sqlite3 this adapter uses, declared here so the public API never
 * depends on better-sqlite3's types (as Kysely's SQLite dialect does). A better-sqlite3
 * `Database` satisfies it, and so can a test double.
 */

/** What running a write statement reports. */
export interface SqliteRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** A prepared statement; parameters are positional values or one object of named values. */
export interface SqliteStatement {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** A synchronous SQLite connection, such as a better-sqlite3 `Database`. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  /** Runs one or more statements, ignoring their results. */
  exec(sql: string): unknown;
  /** Whether a transaction is open on this connection. */
  readonly inTransaction: boolean;
  /** The database file's path, as it was opened (better-sqlite3 has it). */
  readonly name?: string | undefined;
  /** Whether the database lives in memory, where no second connection can reach it. */
  readonly memory?: boolean | undefined;
  close(): unknown;
}

/** Prepares a statement once per SQL text and hands back the same one afterwards. */
export type Sql = (text: string) => SqliteStatement;

/**
 * A connection as repositories use it: the shared repositories' access, statements through the
 * cache, the handle for the rest.
 */
export interface SqliteConnection {
  readonly db: SqliteDatabase;
  readonly sql: Sql;
  readonly access: SqlAccess<false>;
}

/** A statement cache over `db`: every distinct SQL text is prepared once and reused. */
export function statementCache(db: SqliteDatabase): Sql {
  const prepared = new Map<string, SqliteStatement>();
  return (text) => {
    let statement = prepared.get(text);
    if (statement === undefined) {
      statement = rowsAsArrays(db.prepare(text));
      prepared.set(text, statement);
    }
    return statement;
  };
}

/** What better-sqlite3's statements also have: whether rows come back, and arrays for rows. */
interface RowShaping {
  readonly reader?: boolean;
  raw?(toggle: boolean): unknown;
  columns?(): Array<{ name: string }>;
}

/**
 * The same statement, its rows still objects keyed by column name, but read from SQLite as
 * arrays and made into objects here: better-sqlite3 sets each column of an object row from C++,
 * which took about half the time of a 101-row profile page (370 → 195 µs) and of a one-row
 * read (5.1 → 2.7 µs). A statement without rows, or a driver without `raw`, is left as it is.
 */
function rowsAsArrays(statement: SqliteStatement): SqliteStatement {
  const shaping = statement as SqliteStatement & RowShaping;
  if (shaping.reader !== true || shaping.raw === undefined || shaping.columns === undefined) {
    return statement;
  }
  const names = shaping.columns().map((column) => column.name);
  shaping.raw(true);
  const toRow = (values: unknown[]): Record<string, unknown> => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i += 1) row[names[i] as string] = values[i];
    return row;
  };
  return {
    run: (...params) => statement.run(...params),
    get: (...params) => {
      const values = statement.get(...params) as unknown[] | undefined;
      return values === undefined ? undefined : toRow(values);
    },
    all: (...params) => (statement.all(...params) as unknown[][]).map(toRow),
  };
}
