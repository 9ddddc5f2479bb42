import { runCorruptRowContract, runStorageContract } from "@tidings/core/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { preparedStatements } from "./prepared-statements.js";
import { freshStorageHarness, serverUrl, testDatabaseOfFile } from "./testing/test-database.js";

// Named statements need a real server (PGlite takes no statement names): without
// TIDINGS_TEST_PG_URL this file has nothing to run.
const onServer = serverUrl !== undefined;
const db = testDatabaseOfFile();

describe.skipIf(!onServer)("prepared statements", () => {
  /** The names of the statements prepared on one connection of `pool`, after `run`. */
  async function preparedAfter(
    run: (pool: ReturnType<typeof preparedStatements>) => Promise<unknown>,
    maxStatements?: number,
  ): Promise<string[]> {
    const inner = new pg.Pool({ connectionString: serverUrl, max: 1 });
    try {
      const pool = preparedStatements(inner, { maxStatements });
      await run(pool);
      const { rows } = await inner.query<{ name: string }>(
        "SELECT name FROM pg_prepared_statements ORDER BY name",
      );
      return rows.map((row) => row.name);
    } finally {
      await inner.end();
    }
  }

  it("names each statement with values once per text, on the pool and on a borrowed connection", async () => {
    const names = await preparedAfter(async (pool) => {
      expect((await pool.query("SELECT $1::int + 1 AS n", [1])).rows).toEqual([{ n: 2 }]);
      await pool.query("SELECT $1::int + 1 AS n", [2]);
      const connection = await pool.connect();
      try {
        await connection.query("BEGIN");
        await connection.query("SELECT $1::text AS s", ["x"]);
        await connection.query("COMMIT");
      } finally {
        connection.release();
      }
      // No values: run as it is, so a script of several statements still works.
      await pool.query("SELECT 1; SELECT 2");
      // Every call is planned for its values; only the parse is kept.
      const { rows } = await pool.query("SELECT current_setting('plan_cache_mode') AS mode");
      expect(rows).toEqual([{ mode: "force_custom_plan" }]);
    });
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^tidings_[0-9a-f]{24}$/);
  });

  it("destroys a borrowed connection whose statement's result type changed, so the next prepares it afresh", async () => {
    const schema = db.newSchemaName();
    const inner = new pg.Pool({ connectionString: serverUrl, max: 1 });
    const other = new pg.Client({ connectionString: serverUrl });
    await other.connect();
    try {
      await other.query(`CREATE SCHEMA "${schema}"`);
      await other.query(`CREATE TABLE "${schema}".t (id int, v int)`);
      await other.query(`INSERT INTO "${schema}".t VALUES (1, 7)`);
      const pool = preparedStatements(inner);
      const read = `SELECT v FROM "${schema}".t WHERE id = $1`;
      const connection = await pool.connect();
      expect((await connection.query(read, [1])).rows).toEqual([{ v: 7 }]);
      await other.query(`ALTER TABLE "${schema}".t ALTER COLUMN v TYPE text`);
      await expect(connection.query(read, [1])).rejects.toMatchObject({ code: "0A000" });
      connection.release();
      expect(inner.totalCount).toBe(0);
      expect((await pool.query(read, [1])).rows).toEqual([{ v: "7" }]);
    } finally {
      await other.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await other.end();
      await inner.end();
    }
  });

  it("stops naming new texts at maxStatements and runs the rest unnamed", async () => {
    const names = await preparedAfter(async (pool) => {
      for (let i = 0; i < 5; i++) {
        expect((await pool.query(`SELECT $1::int + ${i} AS n`, [1])).rows).toEqual([{ n: 1 + i }]);
      }
    }, 3);
    expect(names).toHaveLength(3);
  });
});

// The whole storage contract through named statements, as `tidings serve` runs it.
if (onServer) {
  const label = "postgres (server, prepared statements)";
  runStorageContract(label, () => freshStorageHarness(db, { prepared: true }));
  runCorruptRowContract(label, () => freshStorageHarness(db, { prepared: true }));
}
