import type { SqlCodec } from "./codec.js";
import { type NewestFirstPages, newestFirstPages, type PageStatement } from "./newest-first.js";
import { decodersByTable, type SqlRecordOf, sqlRecords } from "./records.js";
import {
  insertStatement,
  rowValues,
  type SqlTableName,
  selectLists,
  setClause,
  sqlTables,
} from "./tables.js";

/**
 * Begins a statement that has one good plan for every value although its text has a join: a
 * row found by a unique key beside a single row. The PostgreSQL adapter plans statements with
 * a join for their values on every call, because a join's best plan usually depends on them;
 * it keeps one plan for a statement that begins with this comment. SQLite ignores it.
 */
export const ONE_PLAN = "/* one plan */ ";

/** `T`, or a promise of it where the database answers asynchronously (`A` is `true`). */
export type Answer<A extends boolean, T> = A extends true ? Promise<T> : T;

/**
 * Repository `R` in a database's calling style: each method answers as the port says (`A`
 * `true`), or synchronously (`A` `false`, SQLite's driver), to be scheduled by the adapter.
 */
export type Styled<R, A extends boolean> = {
  [K in keyof R]: R[K] extends (...args: infer P) => Promise<infer T>
    ? (...args: P) => Answer<A, T>
    : never;
};

/**
 * What repositories do alike with a table's records, written once for both databases: every
 * condition is SQL that both understand, with `?` where each of `values` goes in order.
 */
export interface TableRows<T extends object, A extends boolean> {
  insert(record: T): Answer<A, void>;
  /** Inserts `record` unless it breaks the unique `target` (`"(a, b)"`); whether it did. */
  insertNew(record: T, target: string): Answer<A, boolean>;
  /** The first record matching `condition`, or `null`. */
  one(condition: string, values: readonly unknown[]): Answer<A, T | null>;
  /**
   * The first record matching `condition` (or `null`) and the value of `beside`, a scalar
   * subquery, in one statement: `beside` is answered whether or not a record matches. Its `?`
   * come first in `values`, then `condition`'s.
   */
  oneBeside(
    beside: string,
    condition: string,
    values: readonly unknown[],
  ): Answer<A, { record: T | null; beside: unknown }>;
  /** The records matching `condition`, which may end with an `ORDER BY` or `LIMIT`. */
  many(condition: string, values: readonly unknown[]): Answer<A, T[]>;
  /** Writes the fields of `changes` present into the rows matching; how many rows matched. */
  update(
    changes: { readonly [K in keyof T]?: T[K] | undefined },
    condition: string,
    values: readonly unknown[],
  ): Answer<A, number>;
  /**
   * Writes the fields of `changes` present into the row matching `condition`, which names a
   * unique key so at most one matches, and answers its record as written (`null`: none).
   */
  updateOne(
    changes: { readonly [K in keyof T]?: T[K] | undefined },
    condition: string,
    values: readonly unknown[],
  ): Answer<A, T | null>;
  /** Deletes the rows matching `condition`; how many. */
  delete(condition: string, values: readonly unknown[]): Answer<A, number>;
  /** Deletes the first row matching `condition` and answers its record (`null`: none). */
  take(condition: string, values: readonly unknown[]): Answer<A, T | null>;
}

/** One database's statements as the shared repositories use them. */
export interface SqlAccess<A extends boolean> {
  /** The records of table `name`. */
  table<N extends SqlTableName>(name: N): TableRows<SqlRecordOf[N], A>;
  /** A newest-first page of list `list`. */
  page<L extends keyof NewestFirstPages>(
    list: L,
    query: Parameters<NewestFirstPages[L]>[0],
  ): Answer<A, Array<ReturnType<ReturnType<NewestFirstPages[L]>["decode"]>>>;
  /** Table `name` as statements name it (schema-qualified where the database needs it). */
  tableName(name: SqlTableName): string;
  /** The raw rows of a query written with `?` placeholders (an aggregate, a join). */
  select(text: string, values: readonly unknown[]): Answer<A, unknown[]>;
  /** `fn` of an answer, once it is there. */
  map<T, U>(answer: Answer<A, T>, fn: (value: T) => U): Answer<A, U>;
  /** Runs `first`, then `second`, and answers `combine` of what they answered. */
  inTurn<T, U, V>(
    first: () => Answer<A, T>,
    second: () => Answer<A, U>,
    combine: (first: T, second: U) => V,
  ): Answer<A, V>;
}

/** How one database runs statements: all the shared repositories need of a driver. */
export interface SqlDriver<A extends boolean> {
  /** Table `name` as statements name it (schema-qualified where the database needs it). */
  tableName(name: SqlTableName): string;
  /** Runs a statement that answers rows (a `SELECT`, or a write with `RETURNING`). */
  rows(text: string, values: readonly unknown[]): Answer<A, unknown[]>;
  /** Runs a statement that answers nothing. */
  run(text: string, values: readonly unknown[]): Answer<A, void>;
  map: SqlAccess<A>["map"];
  inTurn: SqlAccess<A>["inTurn"];
}

/** How many texts `builtOnce` keeps: conditions are written in the source, so a few dozen. */
const BUILT_TEXTS = 256;

/**
 * `build`, remembering each text by the condition it was built from, so a statement's text is
 * built once and hands the statement cache the same string each time (whose hash V8 keeps) rather
 * than a new one to hash. Bounded, should a caller ever build its conditions at run time.
 */
function builtOnce(build: (key: string) => string): (key: string) => string {
  const texts = new Map<string, string>();
  return (key) => {
    let text = texts.get(key);
    if (text === undefined) {
      text = build(key);
      if (texts.size < BUILT_TEXTS) texts.set(key, text);
    }
    return text;
  };
}

/**
 * The shared repositories' access for one database's `codec`: its statements are written here
 * once, with the placeholders `codec` writes; `driver` runs them. Make it once per codec (it
 * computes every select list), then an access per driver.
 */
export function sqlAccessFor(
  codec: SqlCodec,
): <A extends boolean>(driver: SqlDriver<A>) => SqlAccess<A> {
  const decoders = decodersByTable(sqlRecords(codec));
  const select = selectLists(codec);
  const pages = newestFirstPages(codec);
  /** `condition` with its `?` placeholders written as `codec` writes them, from `first`. */
  const numbered = (condition: string, first: number): string => {
    let position = first - 1;
    return condition.replace(/\?/g, () => {
      position += 1;
      return codec.placeholder(position);
    });
  };

  /** A table's statement texts, built as each condition is first asked for. */
  const tableTexts = (name: SqlTableName, from: string) => {
    const where = (condition: string) => `WHERE ${numbered(condition, 1)}`;
    const insert = insertStatement(sqlTables[name], codec, from);
    return {
      insert,
      insertNew: builtOnce((target) => `${insert} ON CONFLICT ${target} DO NOTHING RETURNING 1`),
      one: builtOnce(
        (condition) => `SELECT ${select[name]} FROM ${from} ${where(condition)} LIMIT 1`,
      ),
      many: builtOnce((condition) => `SELECT ${select[name]} FROM ${from} ${where(condition)}`),
      // Keyed by both parts; a NUL never occurs in SQL written in the source.
      oneBeside: builtOnce((key) => {
        const [beside, condition] = key.split("\u0000");
        return numbered(
          `${ONE_PLAN}SELECT r.*, (${beside}) AS beside FROM (SELECT 1 AS one) o LEFT JOIN
           (SELECT 1 AS found, ${select[name]} FROM ${from} WHERE ${condition} LIMIT 1) r
           ON 1 = 1`,
          1,
        );
      }),
      deleted: builtOnce((condition) => `DELETE FROM ${from} ${where(condition)} RETURNING 1`),
      taken: builtOnce(
        (condition) => `DELETE FROM ${from} ${where(condition)} RETURNING ${select[name]}`,
      ),
    };
  };
  const numberedTexts = builtOnce((text) => numbered(text, 1));
  /**
   * Each table's texts by the name the driver gives it (a schema may qualify it), shared by every
   * access made here: PostgreSQL makes one per transaction.
   */
  const textsByTable = new Map<string, ReturnType<typeof tableTexts>>();
  const textsOf = (name: SqlTableName, from: string) => {
    let texts = textsByTable.get(from);
    if (texts === undefined) {
      texts = tableTexts(name, from);
      textsByTable.set(from, texts);
    }
    return texts;
  };

  return <A extends boolean>(driver: SqlDriver<A>): SqlAccess<A> => {
    /** How many rows a statement that ends `RETURNING 1` wrote. */
    const counted = (text: string, values: readonly unknown[]) =>
      driver.map(driver.rows(text, values), (rows) => rows.length);
    const count = (text: string, values: readonly unknown[]) =>
      counted(`${text} RETURNING 1`, values);

    const tableRows = <N extends SqlTableName>(name: N): TableRows<SqlRecordOf[N], A> => {
      const table = sqlTables[name];
      const from = driver.tableName(name);
      const decode = decoders[name];
      const { insert, insertNew, one, oneBeside, many, deleted, taken } = textsOf(name, from);
      const first = (rows: unknown[]) => (rows[0] === undefined ? null : decode(rows[0]));
      return {
        insert: (record) => driver.run(insert, rowValues(table, record, codec)),
        insertNew: (record, target) =>
          driver.map(
            counted(insertNew(target), rowValues(table, record, codec)),
            (inserted) => inserted === 1,
          ),
        one: (condition, values) => driver.map(driver.rows(one(condition), values), first),
        oneBeside: (beside, condition, values) =>
          driver.map(driver.rows(oneBeside(`${beside}\u0000${condition}`), values), (rows) => {
            const row = rows[0] as { found?: unknown; beside?: unknown } | undefined;
            return {
              record: row?.found == null ? null : decode(row),
              beside: row?.beside ?? null,
            };
          }),
        many: (condition, values) =>
          driver.map(driver.rows(many(condition), values), (rows) => rows.map(decode)),
        update(changes, condition, values) {
          const { set, values: written } = setClause(table, changes, codec);
          const after = numbered(condition, written.length + 1);
          return count(`UPDATE ${from} SET ${set} WHERE ${after}`, [...written, ...values]);
        },
        updateOne(changes, condition, values) {
          const { set, values: written } = setClause(table, changes, codec);
          const after = numbered(condition, written.length + 1);
          return driver.map(
            driver.rows(`UPDATE ${from} SET ${set} WHERE ${after} RETURNING ${select[name]}`, [
              ...written,
              ...values,
            ]),
            first,
          );
        },
        delete: (condition, values) => counted(deleted(condition), values),
        take: (condition, values) => driver.map(driver.rows(taken(condition), values), first),
      };
    };

    return {
      table: tableRows,
      page(list, query) {
        const build = pages[list] as (query: unknown, from: string) => PageStatement<never>;
        const page = build(query, driver.tableName(list));
        return driver.map(driver.rows(page.text, page.values), (rows) => rows.map(page.decode));
      },
      tableName: driver.tableName,
      select: (text, values) => driver.rows(numberedTexts(text), values),
      map: driver.map,
      inTurn: driver.inTurn,
    };
  };
}
