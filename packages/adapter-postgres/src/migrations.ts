import { type MigrateResult, type SchemaChange, schemaMigrations } from "@tidings/core/sql";
import * as changes from "./migrations/index.js";
import type { PgClient, PgQueryable } from "./pg-client.js";
import { runTransaction } from "./pg-client.js";
import { DEFAULT_SCHEMA, quoteIdent, tablesIn } from "./tables.js";

export { type MigrateResult, SchemaTooNewError } from "@tidings/core/sql";

/** One schema change: applied once, in `version` order, recorded in `schema_migrations`. */
export interface Migration extends SchemaChange {
  /** Statements run in order with `search_path` set to the target schema. */
  statements: readonly string[];
}

/** Every migration this code knows, oldest first. */
export const migrations: readonly Migration[] = schemaMigrations.history("statements", changes);

/** The schema version this code writes and expects. */
export const latestSchemaVersion: number = schemaMigrations.latest(migrations);

const PACKAGE = "@tidings/adapter-postgres";

export interface MigrateOptions {
  /** The schema that holds every table (created when missing); default `public`. */
  schema?: string | undefined;
  /** The migrations to apply; defaults to this package's own (tests pass others). */
  migrations?: readonly Migration[] | undefined;
}

/**
 * Applies the pending migrations in version order, all in one transaction that first takes a
 * transaction-level advisory lock for the schema: processes starting at once wait for each
 * other, and each re-reads the recorded version under the lock, so the work happens once.
 * Safe to run twice. Throws `SchemaTooNewError`, changing nothing, when the database was
 * migrated by newer code.
 */
export async function migrate(
  client: PgClient,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const known = options.migrations ?? migrations;
  const record = tablesIn(schema).schemaMigrations;

  return runTransaction(client, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('tidings.migrate'), hashtext($1))", [
      schema,
    ]);
    // Checked first: CREATE SCHEMA needs the CREATE privilege even when the schema exists.
    const { rows } = await tx.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    if (rows.length === 0) await tx.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
    await tx.query(schemaMigrations.recordTable(record));
    const pending = schemaMigrations.pending(known, await recordedVersion(tx, record), PACKAGE);
    // Only for this transaction: the statements name their tables without a schema.
    await tx.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
    const applied: number[] = [];
    for (const migration of pending) {
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query(`INSERT INTO ${record} (version, name, applied_at) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
      applied.push(migration.version);
    }
    return { applied, version: await recordedVersion(tx, record) };
  });
}

/** The schema version a database is at (0 when it was never migrated). */
export async function schemaVersion(
  client: PgQueryable,
  options: { schema?: string | undefined } = {},
): Promise<number> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const { rows } = await client.query("SELECT to_regclass($1) IS NOT NULL AS present", [
    tablesIn(schema).schemaMigrations,
  ]);
  const present = (rows[0] as { present: boolean } | undefined)?.present === true;
  return present ? recordedVersion(client, tablesIn(schema).schemaMigrations) : 0;
}

async function recordedVersion(client: PgQueryable, record: string): Promise<number> {
  const { rows } = await client.query(`SELECT MAX(version) AS version FROM ${record}`);
  const version = (rows[0] as { version: number | null } | undefined)?.version;
  return version ?? 0;
}
