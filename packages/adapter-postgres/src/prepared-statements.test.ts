import { type AddressInfo, connect, createServer } from "node:net";
import { ONE_PLAN } from "@tidings/core/sql";
import { runCorruptRowContract, runStorageContract, skippedUnless } from "@tidings/core/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { runTransaction } from "./pg-client.js";
import { preparedStatements } from "./prepared-statements.js";
import { freshStorageHarness, serverUrl, testDatabaseOfFile } from "./testing/test-database.js";

// Named statements need a real server (PGlite takes no statement names): without
// TIDINGS_TEST_PG_URL this file has nothing to run.
const onServer = serverUrl !== undefined;
const db = testDatabaseOfFile();

describe.skipIf(
  skippedUnless(
    onServer,
    "prepared statements are checked on a PostgreSQL server; set TIDINGS_TEST_PG_URL to run them",
  ),
)("prepared statements", () => {
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

  /**
   * Runs `run` with a fresh schema holding table `t` (made by `table`'s columns), a pool of one
   * connection and another client to act beside it; drops the schema and closes both after.
   */
  async function withTable(
    table: string,
    run: (t: string, inner: pg.Pool, other: pg.Client) => Promise<void>,
  ): Promise<void> {
    const schema = db.newSchemaName();
    const inner = new pg.Pool({ connectionString: serverUrl, max: 1 });
    const other = new pg.Client({ connectionString: serverUrl });
    await other.connect();
    try {
      await other.query(`CREATE SCHEMA "${schema}"`);
      await other.query(`CREATE TABLE "${schema}".t (${table})`);
      await run(`"${schema}".t`, inner, other);
    } finally {
      await other.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await other.end();
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
      // Lists, aggregates and arrays of values stay unnamed, planned for their values on
      // every call.
      const list = "SELECT g FROM generate_series(1, 10) g WHERE g > $1 ORDER BY g DESC LIMIT $2";
      for (let call = 0; call < 7; call++) {
        expect((await pool.query(list, [7, 2])).rows).toEqual([{ g: 10 }, { g: 9 }]);
        const { rows } = await pool.query(
          "SELECT g % 2 AS odd, count(*)::int AS n FROM generate_series(1, $1::int) g GROUP BY 1 ORDER BY 1",
          [3],
        );
        expect(rows).toEqual([
          { odd: 0, n: 1 },
          { odd: 1, n: 2 },
        ]);
        const ids = [2, 3];
        expect((await pool.query("SELECT x FROM unnest($1::int[]) x", [ids])).rows).toHaveLength(2);
        const within = "SELECT g FROM generate_series(1, 5) g WHERE g = ANY($1::int[])";
        expect((await pool.query(within, [ids])).rows).toHaveLength(2);
        const joined =
          "SELECT a.g FROM generate_series(1, 3) a(g) JOIN generate_series(2, 4) b(g) ON a.g = b.g WHERE a.g > $1";
        expect((await pool.query(joined, [0])).rows).toHaveLength(2);
      }
      // A join marked as having one plan for every value is named like any other statement.
      const marked = `${ONE_PLAN}SELECT o.one, r.g FROM (SELECT 1 AS one) o LEFT JOIN
        (SELECT g FROM generate_series(1, 3) g WHERE g = $1::int LIMIT 1) r ON 1 = 1`;
      expect((await pool.query(marked, [2])).rows).toEqual([{ one: 1, g: 2 }]);
    });
    expect(names).toHaveLength(3);
    for (const name of names) expect(name).toMatch(/^tidings_[0-9a-f]{24}$/);
  });

  it("destroys a borrowed connection whose statement's result type changed, so the next prepares it afresh", async () => {
    await withTable("id int, v int", async (t, inner, other) => {
      await other.query(`INSERT INTO ${t} VALUES (1, 7)`);
      const pool = preparedStatements(inner);
      const read = `SELECT v FROM ${t} WHERE id = $1`;
      const connection = await pool.connect();
      expect((await connection.query(read, [1])).rows).toEqual([{ v: 7 }]);
      await other.query(`ALTER TABLE ${t} ALTER COLUMN v TYPE text`);
      await expect(connection.query(read, [1])).rejects.toMatchObject({ code: "0A000" });
      connection.release();
      expect(inner.totalCount).toBe(0);
      expect((await pool.query(read, [1])).rows).toEqual([{ v: "7" }]);
      // Inside a transaction too: the connection that saw it goes, and the next one reads.
      await other.query(`ALTER TABLE ${t} ALTER COLUMN v TYPE int USING v::int`);
      await expect(runTransaction(pool, (tx) => tx.query(read, [1]))).rejects.toMatchObject({
        code: "0A000",
      });
      expect(inner.totalCount).toBe(0);
      expect((await runTransaction(pool, (tx) => tx.query(read, [1]))).rows).toEqual([{ v: 7 }]);
    });
  });

  it("keeps a pool connection whose statement the server refused; destroys one the server ended", async () => {
    await withTable("id int PRIMARY KEY", async (t, inner, other) => {
      const pool = preparedStatements(inner);
      const session = async () =>
        (await pool.query("SELECT pg_backend_pid() AS pid", [])).rows[0] as { pid: number };
      const insert = `INSERT INTO ${t} VALUES ($1)`;
      await pool.query(insert, [1]);
      const first = await session();
      await expect(pool.query(insert, [1])).rejects.toMatchObject({ code: "23505" });
      // A number held by another transaction, given up after the statement's own lock_timeout,
      // as a batched profile insert does.
      await other.query("BEGIN");
      await other.query(`INSERT INTO ${t} VALUES (5)`);
      await expect(
        pool.query(
          `INSERT INTO ${t} SELECT $1::int
            WHERE (SELECT set_config('lock_timeout', '10ms', true)) IS NOT NULL`,
          [5],
        ),
      ).rejects.toMatchObject({ code: "55P03" });
      await other.query("ROLLBACK");
      // The same session answers, its statement still prepared: nothing was reconnected.
      expect(await session()).toEqual(first);
      await pool.query(insert, [2]);
      expect(inner.totalCount).toBe(1);

      // A script without values may leave a failed transaction open: that connection goes.
      await expect(pool.query("BEGIN; SELECT 1/0")).rejects.toMatchObject({ code: "22012" });
      expect(inner.totalCount).toBe(0);
      const second = await session();
      expect(second).not.toEqual(first);
      await pool.query(insert, [3]);
      // A prepared statement the session lost (a DEALLOCATE, a pooler) goes with its connection.
      await pool.query("DEALLOCATE ALL");
      await expect(pool.query(insert, [4])).rejects.toMatchObject({ code: "26000" });
      expect(inner.totalCount).toBe(0);
      await pool.query(insert, [4]);

      // FATAL: the server ended the session, so the connection goes and the next is new.
      await expect(
        pool.query("SELECT pg_terminate_backend(pg_backend_pid())", []),
      ).rejects.toMatchObject({ code: "57P01" });
      expect(inner.totalCount).toBe(0);
      expect(await session()).not.toEqual(second);
    });
  });

  it("stops naming new texts at maxStatements and runs the rest unnamed", async () => {
    const names = await preparedAfter(async (pool) => {
      for (let i = 0; i < 5; i++) {
        expect((await pool.query(`SELECT $1::int + ${i} AS n`, [1])).rows).toEqual([{ n: 1 + i }]);
      }
    }, 3);
    expect(names).toHaveLength(3);
  });

  describe("a transaction's BEGIN and deferred statements go with its next statement", () => {
    /**
     * A table of its own in a new schema, a one-connection pool through `preparedStatements`,
     * and how many round trips (ReadyForQuery answers) that connection has had so far.
     */
    async function withTable(
      run: (
        pool: ReturnType<typeof preparedStatements>,
        table: string,
        trips: () => number,
      ) => Promise<void>,
    ): Promise<void> {
      const schema = db.newSchemaName();
      const table = `"${schema}".t`;
      const inner = new pg.Pool({ connectionString: serverUrl, max: 1 });
      let trips = 0;
      inner.on("connect", (client) => {
        (client as unknown as { connection: pg.Connection }).connection.on("readyForQuery", () => {
          trips += 1;
        });
      });
      try {
        await inner.query(`CREATE SCHEMA "${schema}"`);
        await inner.query(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
        const pool = preparedStatements(inner);
        await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE id > $1`, [0]);
        await run(pool, table, () => trips);
      } finally {
        await inner.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await inner.end();
      }
    }

    const count = async (pool: ReturnType<typeof preparedStatements>, table: string) =>
      (await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE id > $1`, [0])).rows[0];

    it("in one round trip, and the statement is inside the transaction", async () => {
      await withTable(async (pool, table, trips) => {
        const before = trips();
        await runTransaction(pool, async (tx) => {
          await tx.query(`INSERT INTO ${table} (id) VALUES ($1)`, [1]);
          await tx.query(`INSERT INTO ${table} (id) VALUES ($1)`, [2]);
        });
        // BEGIN with the first insert, the second insert, COMMIT.
        expect(trips() - before).toBe(3);
        expect(await count(pool, table)).toEqual({ n: 2 });
        // Rolled back: the first statement, sent with BEGIN, goes too.
        const failure = new Error("changed my mind");
        await expect(
          runTransaction(pool, async (tx) => {
            await tx.query(`INSERT INTO ${table} (id) VALUES ($1)`, [3]);
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect(await count(pool, table)).toEqual({ n: 2 });
        // A transaction that sends nothing costs nothing.
        const idle = trips();
        expect(await runTransaction(pool, async () => "nothing")).toBe("nothing");
        expect(trips()).toBe(idle);
      });
    });

    it("a first statement that fails is refused with its own error and the connection stays fit", async () => {
      await withTable(async (pool, table) => {
        await pool.query(`INSERT INTO ${table} (id) VALUES ($1)`, [1]);
        await expect(
          runTransaction(pool, (tx) => tx.query(`INSERT INTO ${table} (id) VALUES ($1)`, [1])),
        ).rejects.toMatchObject({ code: "23505" });
        // A statement the server cannot parse, twice: the same error both times, so its name
        // was not taken as prepared.
        const broken = `SELEC id FROM ${table} WHERE id = $1`;
        for (let attempt = 0; attempt < 2; attempt++) {
          await expect(runTransaction(pool, (tx) => tx.query(broken, [1]))).rejects.toMatchObject({
            code: "42601",
          });
        }
        // A first statement the server cannot parse takes BEGIN down with it; what the
        // transaction does next still runs inside one, and goes with its rollback.
        for (const together of [false, true]) {
          const failure = new Error("rolled back");
          await expect(
            runTransaction(pool, async (tx) => {
              const insert = `INSERT INTO ${table} (id) VALUES ($1)`;
              if (together) {
                await Promise.allSettled([tx.query(broken, [1]), tx.query(insert, [7])]);
              } else {
                await tx.query(broken, [1]).catch(() => undefined);
                await tx.query(insert, [7]).catch(() => undefined);
              }
              throw failure;
            }),
          ).rejects.toBe(failure);
          expect(await count(pool, table)).toEqual({ n: 1 });
        }
        // Each failure was rolled back, and the one connection still works.
        await runTransaction(pool, (tx) => tx.query(`INSERT INTO ${table} (id) VALUES ($1)`, [2]));
        expect(await count(pool, table)).toEqual({ n: 2 });
        const { rows } = await pool.query("SELECT $1::text AS state", ["fine"]);
        expect(rows).toEqual([{ state: "fine" }]);
      });
    });

    it("deferred statements go with the next statement, the last with COMMIT: one round trip each", async () => {
      await withTable(async (pool, table, trips) => {
        const insert = `INSERT INTO ${table} (id) VALUES ($1)`;
        let before = trips();
        await runTransaction(pool, async (tx) => {
          tx.defer?.(insert, [1]);
          tx.defer?.(insert, [2]);
        });
        // BEGIN, both inserts and COMMIT under one Sync.
        expect(trips() - before).toBe(1);
        expect(await count(pool, table)).toEqual({ n: 2 });
        before = trips();
        const seen = await runTransaction(pool, async (tx) => {
          tx.defer?.(insert, [3]);
          // A read sees the deferred write before it: it went first, in the same transaction.
          const answer = await tx.query(
            `SELECT count(*)::int AS n FROM ${table} WHERE id > $1`,
            [0],
          );
          tx.defer?.(insert, [4]);
          return answer.rows[0];
        });
        expect(seen).toEqual({ n: 3 });
        expect(trips() - before).toBe(2);
        expect(await count(pool, table)).toEqual({ n: 4 });
        // A transaction that only deferred and then failed sends nothing at all.
        before = trips();
        const failure = new Error("changed my mind");
        await expect(
          runTransaction(pool, async (tx) => {
            tx.defer?.(insert, [5]);
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect(trips()).toBe(before);
        expect(await count(pool, table)).toEqual({ n: 4 });
      });
    });

    it("a connection lost while COMMIT's answer is on its way is an unknown outcome, not nothing written", async () => {
      const target = new URL(serverUrl ?? "");
      // Passes everything to the server; once the client has sent COMMIT (with the deferred
      // insert before it), it closes the client's side without passing the answer back.
      const proxy = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        let cut = false;
        client.on("data", (chunk) => {
          upstream.write(chunk);
          if (!cut && chunk.includes("COMMIT")) {
            cut = true;
            setTimeout(() => client.destroy(), 300);
          }
        });
        upstream.on("data", (chunk) => {
          if (!cut) client.write(chunk);
        });
        for (const socket of [client, upstream]) {
          socket.on("error", () => undefined);
          socket.on("close", () => {
            client.destroy();
            upstream.destroy();
          });
        }
      });
      await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
      const { port } = proxy.address() as AddressInfo;
      const viaProxy = new URL(serverUrl ?? "");
      viaProxy.hostname = "127.0.0.1";
      viaProxy.port = String(port);
      const schema = db.newSchemaName();
      const table = `"${schema}".t`;
      const direct = new pg.Pool({ connectionString: serverUrl, max: 1 });
      const inner = new pg.Pool({ connectionString: viaProxy.toString(), max: 1 });
      inner.on("error", () => undefined);
      try {
        await direct.query(`CREATE SCHEMA "${schema}"`);
        await direct.query(`CREATE TABLE ${table} (id int PRIMARY KEY)`);
        const failure = await runTransaction(preparedStatements(inner), async (tx) => {
          await tx.query(`SELECT count(*)::int AS n FROM ${table} WHERE id > $1`, [0]);
          tx.defer?.(`INSERT INTO ${table} (id) VALUES ($1)`, [1]);
        }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toMatchObject({ name: "StorageUnavailableError", outcome: "unknown" });
        // It did commit: "nothing was written" would have invited a retry that writes twice.
        const { rows } = await direct.query(`SELECT count(*)::int AS n FROM ${table}`);
        expect(rows).toEqual([{ n: 1 }]);
      } finally {
        await direct.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await direct.end();
        await inner.end().catch(() => undefined);
        await new Promise((resolve) => proxy.close(resolve));
      }
    });

    it("a deferred statement that fails fails its COMMIT or its next statement, and nothing of the transaction stays", async () => {
      await withTable(async (pool, table) => {
        const insert = `INSERT INTO ${table} (id) VALUES ($1)`;
        await pool.query(insert, [1]);
        // With COMMIT: its own error, and the transaction rolled back (2 is not kept).
        await expect(
          runTransaction(pool, async (tx) => {
            tx.defer?.(insert, [2]);
            tx.defer?.(insert, [1]);
          }),
        ).rejects.toMatchObject({ code: "23505" });
        expect(await count(pool, table)).toEqual({ n: 1 });
        // With a statement: that statement fails with it, and so does every later one, even
        // when the callback swallows the failure; COMMIT is never sent.
        const later: unknown[] = [];
        await expect(
          runTransaction(pool, async (tx) => {
            tx.defer?.(insert, [1]);
            await tx.query(insert, [3]).catch((error: unknown) => later.push(error));
            await tx.query(insert, [4]).catch((error: unknown) => later.push(error));
          }),
        ).rejects.toMatchObject({ code: "23505" });
        expect(later).toHaveLength(2);
        expect(later[1]).toBe(later[0]);
        expect(await count(pool, table)).toEqual({ n: 1 });
        // A deferred statement the server cannot parse skips the deferred statements after it,
        // whose names were never prepared: the same texts work on the next transaction.
        const fresh = `INSERT INTO ${table} (id) SELECT $1::int WHERE $1::int > 0`;
        await expect(
          runTransaction(pool, async (tx) => {
            tx.defer?.(`SELEC $1::int`, [1]);
            tx.defer?.(fresh, [5]);
          }),
        ).rejects.toMatchObject({ code: "42601" });
        await runTransaction(pool, async (tx) => {
          tx.defer?.(fresh, [6]);
        });
        expect(await count(pool, table)).toEqual({ n: 2 });
        const { rows } = await pool.query("SELECT $1::text AS state", ["fine"]);
        expect(rows).toEqual([{ state: "fine" }]);
      });
    });
  });
});

// The whole storage contract through named statements, as `tidings serve` runs it. Not a
// subset: this is the only run of the batching path every storage transaction takes in
// production (BEGIN sent with the first statement, `sql.run` writes deferred to the next
// statement or to COMMIT, so a write's failure shows later than on a plain pool), and nearly
// every repository writes inside transactions. With one schema per file (emptied per case)
// and one pool per file, a case costs what the plain run's does.
if (onServer) {
  const label = "postgres (server, prepared statements)";
  runStorageContract(label, () => freshStorageHarness(db, { prepared: true }));
  runCorruptRowContract(label, () => freshStorageHarness(db, { prepared: true }));
}
