import { at, seedMessage, seedOrganization } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { migrate } from "./migrations.js";
import { sqliteStorage } from "./sqlite-storage.js";
import { type TempDatabaseFile, tempDatabaseFile } from "./testing/temp-database.js";

const pragma = (db: Database.Database, name: string): number =>
  db.pragma(name, { simple: true }) as number;

let file: TempDatabaseFile | undefined;
afterEach(() => {
  file?.remove();
  file = undefined;
});

describe("space freed by retention", () => {
  it("a new file is created in incremental auto-vacuum mode, whether it is opened in WAL mode first or not", async () => {
    file = tempDatabaseFile();
    const storage = sqliteStorage(file.path);
    await storage.close();
    const viaStorage = new Database(file.path);
    expect(pragma(viaStorage, "auto_vacuum")).toBe(2);
    viaStorage.close();

    const other = tempDatabaseFile();
    try {
      const db = new Database(other.path);
      db.exec("PRAGMA journal_mode = WAL");
      migrate(db);
      expect(pragma(db, "auto_vacuum")).toBe(2);
      db.close();
    } finally {
      other.remove();
    }
  });

  it("an existing file keeps its mode: migrating it again never rebuilds it", () => {
    file = tempDatabaseFile();
    const db = new Database(file.path);
    db.exec("CREATE TABLE legacy (x INTEGER)");
    migrate(db);
    expect(pragma(db, "auto_vacuum")).toBe(0);
    db.close();
  });

  it("reclaimSpace gives the pages of deleted messages back, and the file shrinks", async () => {
    file = tempDatabaseFile();
    const db = new Database(file.path);
    const storage = sqliteStorage(db);
    const org = await seedOrganization(storage);
    const body = "x".repeat(2000);
    for (let i = 0; i < 400; i++)
      await seedMessage(storage, org, { body, status: "delivered", createdAt: at(i) });
    const grown = pragma(db, "page_count");
    let deleted = 0;
    for (let batch = 0; batch < 10 && deleted < 400; batch++) {
      deleted += (
        await storage.retention.deleteOldMessages({
          createdBefore: at(1000),
          now: at(1000),
          after: null,
          limit: 100,
        })
      ).deleted;
    }
    expect(deleted).toBe(400);
    expect(pragma(db, "freelist_count")).toBeGreaterThan(100);
    const released = await storage.retention.reclaimSpace();
    expect(released).toBeGreaterThan(100);
    expect(pragma(db, "page_count")).toBeLessThan(grown - 100);
    await storage.close();
    db.close();
  });
});
