import type { PgQueryable } from "./pg-client.js";
import { quoteIdent } from "./tables.js";

export interface AnalyzeOptions {
  /** The schema Tidings' tables live in (default `public`). */
  schema?: string | undefined;
  /** The fewest live rows that make a never-analyzed table worth analyzing (1,000). */
  minRows?: number | undefined;
  /**
   * Tables not to analyze again: the caller's earlier answers. ANALYZE of a table the role does
   * not own only warns and leaves it never-analyzed, so without this it would be tried forever.
   */
  except?: Iterable<string> | undefined;
}

/** Tidings' tables that lookups read through an index; other tables in the schema are left be. */
const LOOKUP_TABLES = [
  "api_keys",
  "campaigns",
  "consent_changes",
  "console_sessions",
  "console_sign_in_tokens",
  "contact_lists",
  "deliveries",
  "delivery_attempts",
  "idempotency_records",
  "list_memberships",
  "message_events",
  "messages",
  "profiles",
  "rate_limit_hits",
  "webhook_subscriptions",
];

/**
 * Runs ANALYZE on Tidings' tables in the schema that have never been analyzed, by hand or by
 * autovacuum, and already hold `minRows` live rows; resolves to their names.
 *
 * Why: until a table's first ANALYZE the planner knows nothing of its columns, and every index
 * that starts with `organization_id` looks as cheap as the unique one a lookup needs. A freshly
 * created database that fills fast (an import, a load test) then answers a profile lookup by
 * scanning the whole organization: 40 ms at 40,000 profiles instead of 0.1 ms. Autovacuum
 * fixes it, but only on its first visit, up to a minute or more later. Cheap to call often:
 * one catalog query.
 */
export async function analyzeNewTables(
  client: PgQueryable,
  options: AnalyzeOptions = {},
): Promise<string[]> {
  const schema = options.schema ?? "public";
  const { rows } = await client.query(
    `SELECT relname FROM pg_stat_user_tables
     WHERE schemaname = $1 AND relname = ANY ($2::text[])
       AND last_analyze IS NULL AND last_autoanalyze IS NULL AND n_live_tup >= $3
     ORDER BY relname`,
    [schema, LOOKUP_TABLES, options.minRows ?? 1_000],
  );
  const done = new Set(options.except ?? []);
  const tables = (rows as Array<{ relname: string }>)
    .map((row) => row.relname)
    .filter((table) => !done.has(table));
  for (const table of tables) {
    await client.query(`ANALYZE ${quoteIdent(schema)}.${quoteIdent(table)}`);
  }
  return tables;
}
