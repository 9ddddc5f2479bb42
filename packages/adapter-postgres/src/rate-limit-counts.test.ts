import { applyRateLimitStep, rateLimitStepArbitrary, skippedUnless } from "@tidings/core/testing";
import fc from "fast-check";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, migrations } from "./migrations.js";
import { postgresStorage } from "./postgres-storage.js";
import { quoteIdent, tablesIn } from "./tables.js";
import { serverUrl, testDatabaseOfFile } from "./testing/test-database.js";

const db = testDatabaseOfFile();
let schema: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ schema, drop } = await db.freshSchema());
});
afterAll(async () => {
  await drop();
});

/** Each key's kept count beside the count of its rows; the triggers must keep them equal. */
async function counts(inSchema: string) {
  const t = tablesIn(inSchema);
  const read = async (text: string) =>
    ((await db.client.query(text)).rows as Array<{ key: string; hits: string | number }>).map(
      (row) => ({ key: row.key, hits: Number(row.hits) }),
    );
  return {
    kept: await read(
      `SELECT key, hits FROM ${quoteIdent(inSchema)}.rate_limit_counts ORDER BY key`,
    ),
    rows: await read(
      `SELECT key, count(*) AS hits FROM ${t.rateLimitHits} GROUP BY key ORDER BY key`,
    ),
  };
}

describe("rate-limit counts (migration 9)", () => {
  it("stay equal to the hits each key holds, through hits, prunes, the retention sweep and TRUNCATE", async () => {
    const storage = postgresStorage(db.client, { schema });
    const hits = tablesIn(schema).rateLimitHits;
    await fc.assert(
      fc.asyncProperty(fc.array(rateLimitStepArbitrary, { maxLength: 40 }), async (steps) => {
        // Each run starts empty; the TRUNCATE must empty the counts too.
        await db.client.query(`TRUNCATE ${hits}`);
        expect(await counts(schema)).toEqual({ kept: [], rows: [] });
        let now = 1_000_000;
        for (const step of steps) {
          now = await applyRateLimitStep(storage, step, now);
          const { kept, rows } = await counts(schema);
          expect(kept).toEqual(rows);
        }
      }),
      { numRuns: 25 },
    );
  });

  it("decides from the kept count, and a refusal puts a count above the rows right", async () => {
    const storage = postgresStorage(db.client, { schema });
    const hits = tablesIn(schema).rateLimitHits;
    const kept = `${quoteIdent(schema)}.rate_limit_counts`;
    await db.client.query(`TRUNCATE ${hits}`);
    for (const at of [1_000, 1_001, 1_002]) await storage.rateLimits.hit("send:x", at, 60_000, 3);
    // Counting the rows would refuse: three are in the window. The kept count says one.
    await db.client.query(`UPDATE ${kept} SET hits = 1 WHERE key = 'send:x'`);
    expect((await storage.rateLimits.hit("send:x", 1_003, 60_000, 3)).allowed).toBe(true);

    // A count above the rows (hits deleted with triggers off) is found at the first refusal.
    await db.client.query(`TRUNCATE ${hits}`);
    await storage.rateLimits.hit("send:y", 2_000, 60_000, 2);
    await db.client.query(`UPDATE ${kept} SET hits = 5 WHERE key = 'send:y'`);
    const repaired = await storage.rateLimits.hit("send:y", 2_001, 60_000, 2);
    expect(repaired).toMatchObject({ allowed: true, remaining: 0 });
    expect(await counts(schema)).toEqual({
      kept: [{ key: "send:y", hits: 2 }],
      rows: [{ key: "send:y", hits: 2 }],
    });
  });

  it("count a refused key's rows at most once per window, and put a wrong count right within one (migrations 13 and 16)", async () => {
    const storage = postgresStorage(db.client, { schema });
    const hits = tablesIn(schema).rateLimitHits;
    const kept = `${quoteIdent(schema)}.rate_limit_counts`;
    const keepWrong = () => db.client.query(`UPDATE ${kept} SET hits = 9 WHERE key = 'send:z'`);
    const hit = (at: number) => storage.rateLimits.hit("send:z", at, 60_000, 3);
    await db.client.query(`TRUNCATE ${hits}`);
    await hit(1_000);
    // The key's first refusal counts its rows, finds one and lets the hit in.
    await keepWrong();
    expect(await hit(2_000)).toMatchObject({ allowed: true, remaining: 1 });
    // Counted at 2,000: until that leaves the window, a refusal trusts the kept count, even a
    // wrong one, instead of counting the rows again.
    await keepWrong();
    expect((await hit(3_000)).allowed).toBe(false);
    await db.client.query(`INSERT INTO ${hits} (key, at) VALUES ('send:z', 40000)`);
    expect((await hit(61_000)).allowed).toBe(false);
    // The window no longer holds the check: the refusal counts the rows (40,000 alone) again.
    expect(await hit(62_001)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await counts(schema)).toEqual({
      kept: [{ key: "send:z", hits: 2 }],
      rows: [{ key: "send:z", hits: 2 }],
    });
    // Checked in this window, but with no row left behind the count (they were deleted with
    // the triggers off), and stamped later than the hit (a clock ahead): counted at once, not
    // refused for the rest of the window with nothing to wait for.
    await db.client.query(`TRUNCATE ${hits}`);
    await keepWrong();
    expect(await hit(63_000)).toMatchObject({ allowed: true, remaining: 2 });
    await hit(63_001);
    await keepWrong();
    await db.client.query(`UPDATE ${kept} SET checked_at = 999999 WHERE key = 'send:z'`);
    expect(await hit(63_002)).toMatchObject({ allowed: true, remaining: 0 });
  });

  // PGlite is one connection: two transactions cannot be open at once there.
  it.skipIf(
    skippedUnless(
      serverUrl !== undefined,
      "rate-limit counts across connections need a PostgreSQL server; set TIDINGS_TEST_PG_URL to run them",
    ),
  )("stay right when two transactions delete hits of the same key at once", async () => {
    const hits = tablesIn(schema).rateLimitHits;
    await db.client.query(`TRUNCATE ${hits}`);
    await db.client.query(
      `INSERT INTO ${hits} (key, at) VALUES ('send:a', 1), ('send:b', 2), ('send:b', 3), ('send:a', 4)`,
    );
    const other = db.anotherClient(2);
    const first = await (other.client as pg.Pool).connect();
    try {
      // The first holds the counts of both keys until it commits; the second deletes the
      // other row of each key, meeting them in the other order, and waits for it.
      await first.query("BEGIN");
      await first.query(`DELETE FROM ${hits} WHERE at IN (1, 3)`);
      const secondText = `DELETE FROM ${hits} WHERE at IN (2, 4)`;
      const second = db.client.query(secondText);
      // Bounded: the second statement is seen waiting on a lock before the first commits (this
      // file's statement, by its text: another file's schema has its own).
      for (let tries = 0; tries < 100; tries += 1) {
        const { rows } = await first.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
             WHERE wait_event_type = 'Lock' AND query = $1`,
          [secondText],
        );
        if ((rows[0] as { waiting: number }).waiting > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await first.query("COMMIT");
      await second;
    } finally {
      first.release();
      await other.close();
    }
    expect(await counts(schema)).toEqual({ kept: [], rows: [] });
  });

  it("counts the hits a schema already held when it is migrated", async () => {
    const older = db.newSchemaName();
    try {
      await migrate(db.client, {
        schema: older,
        migrations: migrations.filter((m) => m.version < 9),
      });
      const hitsTable = tablesIn(older).rateLimitHits;
      await db.client.query(
        `INSERT INTO ${hitsTable} (key, at) VALUES ('send:a', 1), ('send:a', 2), ('send:a', 3), ('send:b', 4)`,
      );
      await migrate(db.client, { schema: older });
      expect((await counts(older)).kept).toEqual([
        { key: "send:a", hits: 3 },
        { key: "send:b", hits: 1 },
      ]);
    } finally {
      await db.client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(older)} CASCADE`);
    }
  });
});
