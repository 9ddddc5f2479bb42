import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { Migration } from "./migrations.js";
import { latestSchemaVersion, migrate, migrations, SchemaTooNewError } from "./migrations.js";
import { sqliteStorage } from "./sqlite-storage.js";
import { tempDatabaseFile } from "./testing/temp-database.js";

const tables = (db: Database.Database): string[] =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((row) => row.name);

const recorded = (db: Database.Database) =>
  db
    .prepare("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
    .all() as Array<{
    version: number;
    name: string;
    applied_at: string;
  }>;

describe("migrate", () => {
  it("applies every migration in order and records each in schema_migrations", () => {
    const db = new Database(":memory:");
    const result = migrate(db);
    expect(result).toEqual({
      applied: migrations.map((m) => m.version),
      version: latestSchemaVersion,
    });
    expect(recorded(db).map(({ version, name }) => ({ version, name }))).toEqual(
      migrations.map(({ version, name }) => ({ version, name })),
    );
    expect(recorded(db)[0]?.applied_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(tables(db)).toEqual(
      expect.arrayContaining(["profiles", "deliveries", "schema_migrations"]),
    );
    db.close();
  });

  it("is safe to run twice: the second run applies nothing and changes nothing", () => {
    const db = new Database(":memory:");
    migrate(db);
    const before = { tables: tables(db), rows: recorded(db) };
    expect(migrate(db)).toEqual({ applied: [], version: latestSchemaVersion });
    expect({ tables: tables(db), rows: recorded(db) }).toEqual(before);
    db.close();
  });

  it("applies only the pending migrations of a database at an older version", () => {
    const db = new Database(":memory:");
    const first: Migration = { version: 1, name: "one", sql: "CREATE TABLE a (x INTEGER)" };
    const second: Migration = { version: 2, name: "two", sql: "CREATE TABLE b (y INTEGER)" };
    migrate(db, { migrations: [first] });
    expect(migrate(db, { migrations: [second, first] })).toEqual({ applied: [2], version: 2 });
    expect(tables(db)).toEqual(["a", "b", "schema_migrations"]);
    db.close();
  });

  it("refuses a database whose recorded version is newer than the code, changing nothing", () => {
    const db = new Database(":memory:");
    migrate(db);
    db.prepare(
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 'x')",
    ).run(latestSchemaVersion + 1);
    const before = tables(db);
    expect(() => migrate(db)).toThrow(SchemaTooNewError);
    expect(() => migrate(db)).toThrow(/newer than/);
    expect(tables(db)).toEqual(before);
    db.close();
  });

  it("sqliteStorage refuses to open a newer database and closes what it opened", () => {
    const file = tempDatabaseFile();
    const db = new Database(file.path);
    migrate(db);
    db.prepare("INSERT INTO schema_migrations VALUES (?, 'future', 'x')").run(999);
    db.close();
    expect(() => sqliteStorage(file.path)).toThrow(SchemaTooNewError);
    file.remove();
  });

  it("a failing migration is rolled back whole and not recorded; earlier ones stay", () => {
    const db = new Database(":memory:");
    const good: Migration = { version: 1, name: "good", sql: "CREATE TABLE a (x INTEGER)" };
    const bad: Migration = {
      version: 2,
      name: "bad",
      sql: "CREATE TABLE b (y INTEGER); INSERT INTO missing VALUES (1);",
    };
    expect(() => migrate(db, { migrations: [good, bad] })).toThrow(/missing/);
    expect(tables(db)).toEqual(["a", "schema_migrations"]);
    expect(recorded(db).map((row) => row.version)).toEqual([1]);
    expect(db.inTransaction).toBe(false);
    db.close();
  });

  it("two connections migrating the same file apply each migration once", () => {
    const file = tempDatabaseFile();
    const a = new Database(file.path);
    const b = new Database(file.path);
    const results = [migrate(a), migrate(b)];
    expect(results.flatMap((r) => r.applied)).toEqual(migrations.map((m) => m.version));
    expect(recorded(b)).toHaveLength(migrations.length);
    a.close();
    b.close();
    file.remove();
  });
});
