import { applyRateLimitStep, rateLimitStepArbitrary } from "@tidings/core/testing";
import Database from "better-sqlite3";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { migrate, migrations } from "./migrations.js";
import { sqliteStorage } from "./sqlite-storage.js";

/** Each key's kept count beside the count of its rows; the triggers must keep them equal. */
const counts = (db: Database.Database) => ({
  kept: db.prepare("SELECT key, hits FROM rate_limit_counts ORDER BY key").all(),
  rows: db
    .prepare("SELECT key, COUNT(*) AS hits FROM rate_limit_hits GROUP BY key ORDER BY key")
    .all(),
});

describe("rate-limit counts (migration 6)", () => {
  it("stay equal to the hits each key holds, through hits, prunes and the retention sweep", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rateLimitStepArbitrary, { maxLength: 60 }), async (steps) => {
        const db = new Database(":memory:");
        const storage = sqliteStorage(db, { separateReads: false });
        try {
          let now = 1_000_000;
          for (const step of steps) {
            now = await applyRateLimitStep(storage, step, now);
            const { kept, rows } = counts(db);
            expect(kept).toEqual(rows);
          }
        } finally {
          await storage.close();
          db.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it("counts the hits a database already held when it is migrated", () => {
    const db = new Database(":memory:");
    migrate(db, { migrations: migrations.filter((m) => m.version < 6) });
    const insert = db.prepare("INSERT INTO rate_limit_hits (key, at) VALUES (?, ?)");
    for (const at of [1, 2, 3]) insert.run("send:a", at);
    insert.run("send:b", 4);
    migrate(db);
    expect(counts(db).kept).toEqual([
      { key: "send:a", hits: 3 },
      { key: "send:b", hits: 1 },
    ]);
    db.close();
  });
});
