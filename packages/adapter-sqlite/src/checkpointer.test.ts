import { statSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { aProfile, cleanupsEach } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { FALLBACK_AUTOCHECKPOINT_PAGES } from "./checkpointer.js";
import { sqliteStorage } from "./sqlite-storage.js";
import { tempDatabaseFile } from "./testing/temp-database.js";

const ORG = "org_00000000000000000000000001";
const cleanups = cleanupsEach();
const size = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** Polls `check` every 20 ms, for at most `ms`; whether it came true. */
async function within(ms: number, check: () => boolean): Promise<boolean> {
  for (let waited = 0; waited <= ms; waited += 20) {
    if (check()) return true;
    await sleep(20);
  }
  return check();
}

/** A file storage that has written 500 profiles (about 100 pages of WAL). */
async function written(options: Parameters<typeof sqliteStorage>[1] = {}) {
  const file = tempDatabaseFile();
  const db = new Database(file.path);
  const storage = sqliteStorage(db, options);
  cleanups.push(async () => {
    await storage.close();
    db.close();
    file.remove();
  });
  const fileBefore = size(file.path);
  await Promise.all(
    Array.from({ length: 500 }, () =>
      storage.profiles.insert(
        aProfile({ organizationId: ORG, attributes: { note: "x".repeat(400) } }),
      ),
    ),
  );
  return { file, db, storage, fileBefore };
}

describe("background checkpoints", () => {
  it("move the WAL into the database file off the writer, and cut an idle WAL to zero", async () => {
    const { file, db, fileBefore } = await written({ backgroundCheckpoints: true });
    // The writer itself would only checkpoint at the fallback size, far above this WAL.
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
    expect(size(`${file.path}-wal`)).toBeGreaterThan(100 * 4096);
    expect(await within(5000, () => size(file.path) > fileBefore + 100 * 4096)).toBe(true);
    expect(await within(5000, () => size(`${file.path}-wal`) === 0)).toBe(true);
  });

  it("are off by default, leaving checkpoints to the writer at SQLite's default size", async () => {
    const { file, db, fileBefore } = await written();
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    await sleep(600);
    expect(size(file.path)).toBe(fileBefore);
  });
});
