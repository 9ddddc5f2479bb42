import type { SqliteDatabase } from "../sqlite-database.js";

/** One statement execution seen by a recording database. */
export interface RecordedCall {
  /** What the test was doing, e.g. `profiles.findByEmail`. */
  label: string;
  sql: string;
  params: unknown[];
}

/** A database wrapper that records statements (for query-plan and statement-reuse tests). */
export interface RecordingDatabase {
  db: SqliteDatabase;
  calls: RecordedCall[];
  /** How many times each SQL text was prepared. */
  prepares: Map<string, number>;
  /** Every text run with `exec` (transaction control, PRAGMAs), in order. */
  execs: string[];
  /** Labels the calls made from now on. */
  label(name: string): void;
}

/** Wraps `inner` so every prepare and every statement execution is recorded. */
export function recordingDatabase(inner: SqliteDatabase): RecordingDatabase {
  let current = "";
  const calls: RecordedCall[] = [];
  const prepares = new Map<string, number>();
  const execs: string[] = [];
  const db: SqliteDatabase = {
    prepare(sql) {
      prepares.set(sql, (prepares.get(sql) ?? 0) + 1);
      const statement = inner.prepare(sql);
      const record = (params: unknown[]): unknown[] => {
        calls.push({ label: current, sql, params });
        return params;
      };
      return {
        run: (...params) => statement.run(...record(params)),
        get: (...params) => statement.get(...record(params)),
        all: (...params) => statement.all(...record(params)),
      };
    },
    exec(sql) {
      execs.push(sql);
      return inner.exec(sql);
    },
    get inTransaction() {
      return inner.inTransaction;
    },
    close: () => inner.close(),
  };
  return {
    db,
    calls,
    prepares,
    execs,
    label: (name) => {
      current = name;
    },
  };
}
