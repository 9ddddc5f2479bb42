import { createHash } from "node:crypto";
import type { PgPool, PgPoolConnection } from "./pg-client.js";

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
  query(text: string | PgNamedQuery, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A pool that runs named statements (`pg.Pool`). */
export interface PgNamingPool extends PgPool {
  query(text: string | PgNamedQuery, values?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<PgNamingConnection>;
}

/**
 * After five calls PostgreSQL may keep one generic plan for a named statement, made without
 * its values. For the operator API's lists that plan walks the whole table by `seq` and
 * filters on the organization, which for a small organization in a large table reads almost
 * every row; with its values, the planner takes the organization's index. So each connection
 * plans every call for its values and keeps only the parse.
 */
const PLAN_EACH_CALL = "SET plan_cache_mode = force_custom_plan";

/** SQLSTATE of "cached plan must not change result type". */
const STALE_PLAN = "0A000";

/** Options of `preparedStatements`. */
export interface PreparedStatementsOptions {
  /**
   * How many distinct statements get a name (default 1,000); any beyond run unnamed, so a
   * caller that builds many texts cannot grow each connection's statements without end.
   */
  maxStatements?: number | undefined;
}

/**
 * `pool` (a `pg.Pool`) with every statement that takes values run as a named prepared
 * statement: each connection parses a text once instead of on every call, and Node sends no
 * Parse message for it again. A name is a hash of the text, so the same text always has the
 * same name. Statements without values (transaction control, migrations' scripts of several
 * statements) run as they are. Each connection still plans every call for its values
 * (`plan_cache_mode`, set once per connection): only the parse is saved, never a plan made
 * without the values.
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
  /** Runs `text` on `inner`, named when it takes values and a name is still free. */
  const send = (inner: PgNamingConnection, text: string, values?: unknown[]) => {
    if (values === undefined || values.length === 0) return inner.query(text, values);
    let name = names.get(text);
    if (name === undefined) {
      if (names.size >= max) return inner.query(text, values);
      name = `tidings_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
      names.set(text, name);
    }
    return inner.query({ name, text, values });
  };
  // Connections already told to plan every call for its values (see below).
  const planningEachCall = new WeakSet<PgNamingConnection>();
  const borrow = async (): Promise<PgNamingConnection> => {
    const inner = await pool.connect();
    if (!planningEachCall.has(inner)) {
      try {
        await inner.query(PLAN_EACH_CALL);
      } catch (error) {
        inner.release(error as Error);
        throw error;
      }
      planningEachCall.add(inner);
    }
    return inner;
  };
  const connection = (inner: PgNamingConnection): PgPoolConnection => {
    let stale = false;
    return {
      query: async (text, values) => {
        try {
          return await send(inner, text, values);
        } catch (error) {
          if ((error as { code?: unknown } | null)?.code === STALE_PLAN) stale = true;
          throw error;
        }
      },
      release: (error) => inner.release(error ?? stale),
    };
  };
  return {
    // As pg.Pool's own query does: borrow, run, give back (destroyed when the query failed).
    query: async (text, values) => {
      const inner = await borrow();
      try {
        const answer = await send(inner, text, values);
        inner.release();
        return answer;
      } catch (error) {
        inner.release(error as Error);
        throw error;
      }
    },
    connect: async () => connection(await borrow()),
  };
}
