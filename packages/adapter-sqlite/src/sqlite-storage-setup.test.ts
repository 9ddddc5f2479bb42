import { readdirSync, readlinkSync } from "node:fs";
import { anOrganization, aProfile, skippedUnless } from "@tidings/core/testing";
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
    expect(pragma(db, "temp_store")).toBe(2);
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

  it.skipIf(
    skippedUnless(
      process.platform === "linux",
      "the statement journal check reads /proc/self/fd, which only Linux has",
    ),
  )("keeps a transaction's statement journal in memory however many pages it changes", async () => {
    // SQLite names its temporary files etilqs_…, and unlinks them as it opens them.
    const tempFilesOpen = (): number =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).includes("etilqs_");
        } catch {
          return false; // closed in the meantime
        }
      }).length;
    const file = tempDatabaseFile();
    const raw = new Database(file.path);
    const recording = recordingDatabase(raw);
    const storage = sqliteStorage(recording.db);
    const organization = anOrganization();
    await storage.organizations.insert(organization);
    const profiles = await Promise.all(
      Array.from({ length: 300 }, () =>
        storage.profiles.insert(aProfile({ organizationId: organization.id })),
      ),
    );
    const before = tempFilesOpen();
    let during = -1;
    // Queued first, so the transaction below is the second unit of its group and runs in a
    // savepoint (the first needs none).
    const first = storage.profiles.insert(aProfile({ organizationId: organization.id }));
    // The savepoint journals each page that held a profile before it, well over 64 KiB:
    // without the setting SQLite opens a temporary file for the journal.
    await storage.transaction(async (tx) => {
      for (const profile of profiles) {
        if (profile === "phone_number_taken") throw new Error("phone numbers are fresh");
        await tx.profiles.update({ ...profile, attributes: { note: "x".repeat(100) } });
      }
      during = tempFilesOpen();
    });
    await first;
    await storage.close();
    raw.close();
    file.remove();
    // It did run in a savepoint, the case the setting is for.
    expect(recording.execs).toContain("SAVEPOINT tidings_unit");
    expect(during).toBe(before);
  });
});
