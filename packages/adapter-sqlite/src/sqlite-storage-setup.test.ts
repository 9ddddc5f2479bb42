import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { latestSchemaVersion } from "./migrations.js";
import { sqliteStorage } from "./sqlite-storage.js";
import { recordingDatabase } from "./testing/recording-database.js";
import { tempDatabaseFile } from "./testing/temp-database.js";

const pragma = (db: Database.Database, name: string): unknown => db.pragma(name, { simple: true });

describe("sqliteStorage setup", () => {
  it("configures WAL, foreign keys and synchronous NORMAL by default, and never busy-waits in SQLite", async () => {
    const file = tempDatabaseFile();
    const db = new Database(file.path);
    const storage = sqliteStorage(db);
    expect(pragma(db, "journal_mode")).toBe("wal");
    // Waiting for another process's lock happens on a timer (see while-busy.test.ts).
    expect(pragma(db, "busy_timeout")).toBe(0);
    expect(pragma(db, "foreign_keys")).toBe(1);
    expect(pragma(db, "synchronous")).toBe(1);
    await storage.close();
    db.close();
    file.remove();
  });

  it("honours the synchronous FULL option", async () => {
    const db = new Database(":memory:");
    const storage = sqliteStorage(db, { synchronous: "full" });
    expect(pragma(db, "synchronous")).toBe(2);
    await storage.close();
    db.close();
  });

  it("migrates on open unless told not to", async () => {
    const migrated = new Database(":memory:");
    await sqliteStorage(migrated).close();
    expect(pragma(migrated, "user_version")).toBe(0);
    const version = migrated.prepare("SELECT MAX(version) AS v FROM schema_migrations").get();
    expect(version).toEqual({ v: latestSchemaVersion });
    const untouched = new Database(":memory:");
    await sqliteStorage(untouched, { migrate: false }).close();
    expect(untouched.prepare("SELECT name FROM sqlite_master").all()).toEqual([]);
    migrated.close();
    untouched.close();
  });

  it("prepares each statement once and reuses it", async () => {
    const recording = recordingDatabase(new Database(":memory:"));
    const storage = sqliteStorage(recording.db);
    for (let i = 0; i < 5; i++) {
      await storage.profiles.findByPhone("org_a", "+306900000000");
      await storage.rateLimits.hit("key", i, 1000, 10);
    }
    const repeated = [...recording.prepares].filter(([, count]) => count > 1);
    expect(repeated).toEqual([]);
    expect(recording.calls.length).toBeGreaterThan(recording.prepares.size);
    await storage.close();
    recording.db.close();
  });

  it("closes a database it opened itself, and leaves a handed-in one open", async () => {
    const file = tempDatabaseFile();
    const owned = sqliteStorage(file.path);
    await owned.ping();
    await owned.close();
    await expect(owned.ping()).rejects.toThrow(/closed/);

    const db = new Database(file.path);
    const borrowed = sqliteStorage(db);
    await borrowed.close();
    expect(db.open).toBe(true);
    db.close();
    file.remove();
  });
});
