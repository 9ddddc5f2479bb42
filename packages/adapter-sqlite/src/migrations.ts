import { type MigrateResult, type SchemaChange, schemaMigrations } from "@tidings/core/sql";
import * as changes from "./migrations/index.js";
import type { SqliteDatabase } from "./sqlite-database.js";

export { type MigrateResult, SchemaTooNewError } from "@tidings/core/sql";

/** One schema change: applied once, in `version` order, inside its own transaction. */
export interface Migration extends SchemaChange {
  /** The SQL script of the change, run as one `exec`. */
  sql: string;
}

/** Every migration this code knows, oldest first. */
export const migrations: readonly Migration[] = schemaMigrations.history("sql", changes);

/** The schema version this code writes and expects. */
export const latestSchemaVersion: number = schemaMigrations.latest(migrations);

const PACKAGE = "@tidings/adapter-sqlite";

export interface MigrateOptions {
  /** The migrations to apply; defaults to this package's own (tests pass others). */
  migrations?: readonly Migration[] | undefined;
}

const recordTable = `${schemaMigrations.recordTable("schema_migrations")} STRICT`;

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
  const known = options.migrations ?? migrations;
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
  for (const migration of schemaMigrations.pending(known, recordedVersion(), PACKAGE)) {
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another process may have applied it while we waited for the write lock.
      if (schemaMigrations.pending(known, recordedVersion(), PACKAGE).includes(migration)) {
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
