import { initialSchema } from "./migrations/0001-initial-schema.js";
import { retentionIndexes } from "./migrations/0002-retention.js";
import { consoleSchema } from "./migrations/0003-console.js";
import { operatorApiSchema } from "./migrations/0004-operator-api.js";
import type { PgClient, PgQueryable } from "./pg-client.js";
import { runTransaction } from "./pg-client.js";
import { DEFAULT_SCHEMA, quoteIdent, tablesIn } from "./tables.js";

/** One schema change: applied once, in `version` order, recorded in `schema_migrations`. */
export interface Migration {
  version: number;
  name: string;
  /** Statements run in order with `search_path` set to the target schema. */
  statements: readonly string[];
}

/** Every migration this code knows, oldest first. Never edit a released one: add a new one. */
export const migrations: readonly Migration[] = [
  { version: 1, name: "initial schema", statements: initialSchema },
  { version: 2, name: "retention indexes", statements: retentionIndexes },
  { version: 3, name: "console sessions and api key names", statements: consoleSchema },
  { version: 4, name: "operator api", statements: operatorApiSchema },
];

/** The schema version this code writes and expects. */
export const latestSchemaVersion: number = migrations.reduce((v, m) => Math.max(v, m.version), 0);

/** The database was migrated by newer code; running older code against it could corrupt it. */
export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
  constructor(
    readonly databaseVersion: number,
    readonly codeVersion: number,
  ) {
    super(
      `The database schema is at version ${databaseVersion}, newer than the ${codeVersion} this ` +
        "version of @tidings/adapter-postgres knows. Upgrade Tidings; refusing to use the database.",
    );
  }
}

export interface MigrateOptions {
  /** The schema that holds every table (created when missing); default `public`. */
  schema?: string | undefined;
  /** The migrations to apply; defaults to this package's own (tests pass others). */
  migrations?: readonly Migration[] | undefined;
}

export interface MigrateResult {
  /** The versions applied by this call, in order (empty when the schema was up to date). */
  applied: number[];
  /** The schema version after the call. */
  version: number;
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
  const known = [...(options.migrations ?? migrations)].sort((a, b) => a.version - b.version);
  const codeVersion = known.at(-1)?.version ?? 0;
  const record = tablesIn(schema).schemaMigrations;

  return runTransaction(client, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('tidings.migrate'), hashtext($1))", [
      schema,
    ]);
    // Checked first: CREATE SCHEMA needs the CREATE privilege even when the schema exists.
    const { rows } = await tx.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    if (rows.length === 0) await tx.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${record} (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at TEXT NOT NULL
      )`,
    );
    const current = await recordedVersion(tx, record);
    if (current > codeVersion) throw new SchemaTooNewError(current, codeVersion);
    // Only for this transaction: the statements name their tables without a schema.
    await tx.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
    const applied: number[] = [];
    for (const migration of known) {
      if (migration.version <= current) continue;
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
