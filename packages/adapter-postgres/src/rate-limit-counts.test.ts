import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, migrations } from "./migrations.js";
import { postgresStorage } from "./postgres-storage.js";
import { quoteIdent, tablesIn } from "./tables.js";
import { testDatabaseOfFile } from "./testing/test-database.js";

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

type Step =
  | { kind: "hit"; key: string; advanceMs: number; windowMs: number; limit: number }
  | { kind: "sweep"; backMs: number; limit: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("hit" as const),
      key: fc.constantFrom("send:a", "send:b", "send:c"),
      advanceMs: fc.integer({ min: 0, max: 400 }),
      windowMs: fc.constantFrom(100, 1000),
      limit: fc.integer({ min: 1, max: 6 }),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("sweep" as const),
      backMs: fc.integer({ min: 0, max: 2000 }),
      limit: fc.integer({ min: 1, max: 10 }),
    }),
    weight: 1,
  },
);

describe("rate-limit counts (migration 9)", () => {
  it("stay equal to the hits each key holds, through hits, prunes, the retention sweep and TRUNCATE", async () => {
    const storage = postgresStorage(db.client, { schema });
    const hits = tablesIn(schema).rateLimitHits;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        // Each run starts empty; the TRUNCATE must empty the counts too.
        await db.client.query(`TRUNCATE ${hits}`);
        expect(await counts(schema)).toEqual({ kept: [], rows: [] });
        let now = 1_000_000;
        for (const s of steps) {
          if (s.kind === "hit") {
            now += s.advanceMs;
            await storage.rateLimits.hit(s.key, now, s.windowMs, s.limit);
          } else {
            await storage.retention.deleteRateLimitHitsBefore(now - s.backMs, s.limit);
          }
          const { kept, rows } = await counts(schema);
          expect(kept).toEqual(rows);
        }
      }),
      { numRuns: 25 },
    );
  });

  it("decides from the kept count: a count that disagrees with the rows is what the hit obeys", async () => {
    const storage = postgresStorage(db.client, { schema });
    await db.client.query(`TRUNCATE ${tablesIn(schema).rateLimitHits}`);
    expect((await storage.rateLimits.hit("send:x", 1_000, 60_000, 3)).remaining).toBe(2);
    // Were the rows counted, one more hit would fit; the kept count says the window is full.
    await db.client.query(
      `UPDATE ${quoteIdent(schema)}.rate_limit_counts SET hits = 3 WHERE key = 'send:x'`,
    );
    expect((await storage.rateLimits.hit("send:x", 1_001, 60_000, 3)).allowed).toBe(false);
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
