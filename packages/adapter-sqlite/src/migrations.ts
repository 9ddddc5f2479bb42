import { initialSchema } from "./migrations/0001-initial-schema.js";
import { retentionIndexes } from "./migrations/0002-retention.js";
import { consoleSchema } from "./migrations/0003-console.js";
import { operatorApiSchema } from "./migrations/0004-operator-api.js";
import type { SqliteDatabase } from "./sqlite-database.js";

/** One schema change: applied once, in `version` order, inside its own transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration this code knows, oldest first. Never edit a released one: add a new one. */
export const migrations: readonly Migration[] = [
  { version: 1, name: "initial schema", sql: initialSchema },
  { version: 2, name: "retention indexes", sql: retentionIndexes },
  { version: 3, name: "console sessions and api key names", sql: consoleSchema },
  { version: 4, name: "operator api", sql: operatorApiSchema },
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
        "version of @tidings/adapter-sqlite knows. Upgrade Tidings; refusing to use the database.",
    );
  }
}

export interface MigrateOptions {
  /** The migrations to apply; defaults to this package's own (tests pass others). */
  migrations?: readonly Migration[] | undefined;
}

export interface MigrateResult {
  /** The versions applied by this call, in order (empty when the schema was up to date). */
  applied: number[];
  /** The schema version after the call. */
  version: number;
}

const recordTable = /* sql */ `
CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
) STRICT`;

/**
 * Puts a new, empty database file in incremental auto-vacuum mode, so the pages that retention
 * frees can be given back to the file system (`PRAGMA incremental_vacuum`). The mode can only
 * be chosen before the first table exists; an existing file keeps its mode until a one-off
 * `VACUUM` (see the docs on retention).
 */
function reclaimFreedPages(db: SqliteDatabase): void {
  const tables = db.prepare("SELECT COUNT(*) AS n FROM sqlite_master").get() as { n: number };
  if (tables.n > 0 || db.inTransaction) return;
  // The VACUUM of an empty file is instant, and makes the mode stick even once the file is in
  // WAL mode (where the PRAGMA alone is ignored).
  db.exec("PRAGMA auto_vacuum = INCREMENTAL");
  db.exec("VACUUM");
}

/**
 * Applies the pending migrations in version order, each in its own `BEGIN IMMEDIATE`
 * transaction together with its row in `schema_migrations`. Safe to run twice and from two
 * processes at once (each step re-reads the recorded version under the write lock). Throws
 * `SchemaTooNewError`, changing nothing, when the database is newer than the code.
 */
export function migrate(db: SqliteDatabase, options: MigrateOptions = {}): MigrateResult {
  const known = [...(options.migrations ?? migrations)].sort((a, b) => a.version - b.version);
  const codeVersion = known.at(-1)?.version ?? 0;
  reclaimFreedPages(db);
  db.exec(recordTable);
  const maxVersion = db.prepare("SELECT MAX(version) AS version FROM schema_migrations");
  const record = db.prepare(
    "INSERT INTO schema_migrations (version, name, applied_at) " +
      "VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
  );
  const recordedVersion = (): number =>
    (maxVersion.get() as { version: number | null }).version ?? 0;
  const applied: number[] = [];
  const current = recordedVersion();
  if (current > codeVersion) throw new SchemaTooNewError(current, codeVersion);
  for (const migration of known) {
    if (migration.version <= current) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another process may have applied it while we waited for the write lock.
      const now = recordedVersion();
      if (now > codeVersion) throw new SchemaTooNewError(now, codeVersion);
      if (now < migration.version) {
        db.exec(migration.sql);
        record.run(migration.version, migration.name);
        applied.push(migration.version);
      }
      db.exec("COMMIT");
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
  }
  return { applied, version: recordedVersion() };
}
