import type { SqlAccess } from "@tidings/core/sql";
import type { PgTransaction } from "./pg-client.js";
import type { Tables } from "./tables.js";

/**
 * How a repository talks to the database, the same inside and outside a transaction. Every
 * statement is one parameterized query; repositories never see connections.
 */
export interface Sql {
  readonly tables: Tables;
  /** Whether a transaction is already open (`atomic` then joins it instead of opening one). */
  readonly inTransaction: boolean;
  /**
   * Throws if a statement may not run from here now (the storage closed, or a call through the
   * storage from inside one of its own transactions on a single connection). Statements check
   * for themselves when sent; a call whose statement is sent later checks when made.
   */
  check(): void;
  /** Runs one statement and answers its rows. */
  rows<Row>(text: string, values?: unknown[]): Promise<Row[]>;
  /**
   * Runs one statement whose answer nobody needs. Inside a transaction on a connection that
   * batches statements it goes out with the transaction's next statement or its COMMIT (one
   * round trip fewer), and its failure fails that statement and the transaction.
   */
  run(text: string, values?: unknown[]): Promise<void>;
  /** Runs `fn`'s statements as one unit: in a new transaction, or inside the one already open. */
  atomic<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs one statement that may break a constraint by design. Inside a transaction it runs
   * under a savepoint, so the refusal does not abort the caller's transaction.
   */
  tentative<Row>(text: string, values?: unknown[]): Promise<Row[]>;
}

/** What repositories are made from: the shared repositories' access, and `Sql` for the rest. */
export interface PgConnection {
  readonly sql: Sql;
  readonly access: SqlAccess<true>;
}

/** Plain statements outside any transaction; `atomic` opens one through `begin`. */
export function autocommitSql(
  tables: Tables,
  query: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>,
  begin: <T>(fn: (sql: Sql) => Promise<T>) => Promise<T>,
  check: () => void,
): Sql {
  const rows = async <Row>(text: string, values: unknown[] = []): Promise<Row[]> =>
    (await query(text, values)).rows as Row[];
  const run = async (text: string, values: unknown[] = []): Promise<void> => {
    await query(text, values);
  };
  return { tables, inTransaction: false, check, rows, run, tentative: rows, atomic: begin };
}

/** A transaction's view: tracks statement failures, since PostgreSQL aborts the transaction. */
export interface TransactionSql extends Sql {
  /** The first statement error not undone by a savepoint, if any. */
  failure(): unknown;
  /** Refuses every later statement (the transaction has ended). */
  end(): void;
}

/** Statements on the connection that holds an open transaction. */
export function transactionSql(tables: Tables, tx: PgTransaction): TransactionSql {
  let open = true;
  let failed: { error: unknown } | undefined;
  let savepoints = 0;

  const send = async (text: string, values: unknown[]): Promise<unknown[]> => {
    if (!open) throw new Error("The transaction has already ended; use the storage instead.");
    return (await tx.query(text, values)).rows;
  };

  const sql: TransactionSql = {
    tables,
    inTransaction: true,
    check() {
      if (!open) throw new Error("The transaction has already ended; use the storage instead.");
    },
    async rows<Row>(text: string, values: unknown[] = []): Promise<Row[]> {
      try {
        return (await send(text, values)) as Row[];
      } catch (error) {
        failed ??= { error };
        throw error;
      }
    },
    async run(text: string, values: unknown[] = []): Promise<void> {
      if (tx.defer === undefined) {
        await sql.rows(text, values);
        return;
      }
      if (!open) throw new Error("The transaction has already ended; use the storage instead.");
      tx.defer(text, values);
    },
    atomic: (fn) => fn(sql),
    async tentative<Row>(text: string, values: unknown[] = []): Promise<Row[]> {
      savepoints += 1;
      const name = `tidings_${savepoints}`;
      await sql.rows(`SAVEPOINT ${name}`);
      try {
        const result = (await send(text, values)) as Row[];
        await sql.rows(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (error) {
        await sql.rows(`ROLLBACK TO SAVEPOINT ${name}`);
        await sql.rows(`RELEASE SAVEPOINT ${name}`);
        throw error;
      }
    },
    failure: () => failed?.error,
    end: () => {
      open = false;
    },
  };
  return sql;
}
