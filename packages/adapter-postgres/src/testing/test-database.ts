import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import type { CorruptibleHarness } from "@tidings/core/testing";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { migrate } from "../migrations.js";
import type { PgListeningPool, PgNativeListener } from "../notifications.js";
import type { PgClient } from "../pg-client.js";
import { postgresStorage } from "../postgres-storage.js";
import { preparedStatements } from "../prepared-statements.js";
import { quoteIdent } from "../tables.js";
import { postgresRawReaders } from "./raw-readers.js";

/**
 * Test support: the real server at `TIDINGS_TEST_PG_URL` when it is set (CI), PGlite otherwise,
 * so `pnpm test` passes with no server. Test files run in parallel, so each test works in a
 * schema of its own, dropped afterwards.
 */
export const serverUrl: string | undefined = process.env.TIDINGS_TEST_PG_URL || undefined;

export interface TestDatabase {
  readonly kind: "server" | "pglite";
  /** A pool on the server, or the file's one PGlite instance. */
  readonly client: PgClient;
  /** A fresh schema name, unique across parallel test files. */
  newSchemaName(): string;
  /**
   * Another client, standing in for another process: a pool of its own on the server; on
   * PGlite (one connection by nature) the same instance.
   */
  anotherClient(max?: number): {
    client: PgClient;
    /** The same client, typed as what `listenForDeliveries` takes. */
    listenSource: PgListeningPool | PgNativeListener;
    close: () => Promise<void>;
  };
  /** Creates a fresh schema, migrated; `drop` removes it with everything in it. */
  freshSchema(): Promise<{ schema: string; drop: () => Promise<void> }>;
  /**
   * The handle's one reused schema, as a fresh migration leaves it: migrated on the first
   * call, emptied by `emptySchemaScript` on every later one, dropped on `close`. For suites of
   * many cases that each want an empty schema: migrating and dropping one per case cost some
   * 1.5 s of DDL on a loaded 2-core machine, emptying one costs milliseconds.
   */
  emptySchema(): Promise<string>;
  /**
   * Server only: the handle's pool for named prepared statements, beside `client` so the
   * statements it prepares stay on connections of its own; made on first use, ended on
   * `close`.
   */
  namingPool(): pg.Pool;
  close(): Promise<void>;
}

/** A fresh schema name such as `t_3f9a…`. */
export const aSchemaName = (): string => `t_${randomBytes(8).toString("hex")}`;

/**
 * The test file's database: opened before its first test and closed after its last, so a
 * file pays PGlite's start-up once. Use it inside tests and hooks, not while they are collected.
 */
export function testDatabaseOfFile(): TestDatabase {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(async () => {
    await db?.close();
  });
  const opened = (): TestDatabase => {
    if (db === undefined) throw new Error("The test database opens before the file's first test.");
    return db;
  };
  return {
    get kind() {
      return opened().kind;
    },
    get client() {
      return opened().client;
    },
    newSchemaName: () => opened().newSchemaName(),
    anotherClient: (max) => opened().anotherClient(max),
    freshSchema: () => opened().freshSchema(),
    emptySchema: () => opened().emptySchema(),
    namingPool: () => opened().namingPool(),
    close: () => opened().close(),
  };
}

/** Opens the server pool (when `TIDINGS_TEST_PG_URL` is set) or a PGlite instance. */
export async function openTestDatabase(): Promise<TestDatabase> {
  if (serverUrl !== undefined) {
    const pool = newServerPool();
    return fromClient(
      "server",
      pool,
      () => pool.end(),
      (max) => {
        const other = newServerPool(max);
        return { client: other, listenSource: other, close: () => other.end() };
      },
    );
  }
  const pglite = await PGlite.create();
  // PGlite is one connection by nature: "another client" is the same instance.
  return fromClient(
    "pglite",
    pglite,
    () => pglite.close(),
    () => ({
      client: pglite,
      listenSource: pglite,
      close: async () => undefined,
    }),
  );
}

/** A pool on the test server; the caller ends it. */
function newServerPool(max = 10): pg.Pool {
  if (serverUrl === undefined) throw new Error("TIDINGS_TEST_PG_URL is not set");
  return new pg.Pool({ connectionString: serverUrl, max });
}

function fromClient(
  kind: TestDatabase["kind"],
  client: PgClient,
  end: () => Promise<void>,
  anotherClient: TestDatabase["anotherClient"],
): TestDatabase {
  let reused: Promise<{ schema: string; empty: string }> | undefined;
  let naming: pg.Pool | undefined;
  return {
    kind,
    client,
    newSchemaName: aSchemaName,
    anotherClient,
    async freshSchema() {
      const schema = aSchemaName();
      await migrate(client, { schema });
      return {
        schema,
        drop: async () => {
          await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
        },
      };
    },
    async emptySchema() {
      if (reused === undefined) {
        const schema = aSchemaName();
        reused = migrate(client, { schema }).then(async () => ({
          schema,
          empty: await emptySchemaScript(client, schema),
        }));
        return (await reused).schema;
      }
      const { schema, empty } = await reused;
      await client.query(empty);
      return schema;
    },
    namingPool() {
      if (kind !== "server") throw new Error("Named statements need a PostgreSQL server");
      naming ??= newServerPool();
      return naming;
    },
    async close() {
      await naming?.end();
      const schema = await reused?.then(
        (done) => done.schema,
        () => undefined,
      );
      if (schema !== undefined) {
        await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      }
      await end();
    },
  };
}

/**
 * One statement that empties migrated `schema` back to what its migrations left: deletes every
 * row of every table but the migrations' own bookkeeping (tables that refer to others first,
 * so no foreign key stops it; the triggers run, so the rate-limit counts they keep stay
 * right) and restarts every sequence. DELETE, not TRUNCATE: TRUNCATE makes new files for each
 * table and index, some 600 ms for this schema on a loaded machine, where deleting the few
 * rows a case leaves takes milliseconds. One `DO` block, so PGlite's `query` (one statement
 * per call) runs it too.
 */
export async function emptySchemaScript(client: PgClient, schema: string): Promise<string> {
  const { rows } = await client.query(
    `SELECT c.relname AS name, c.relkind AS kind,
            coalesce(array_agg(r.relname) FILTER (WHERE r.relname IS NOT NULL), '{}') AS refers
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_constraint f ON f.conrelid = c.oid AND f.contype = 'f' AND f.confrelid <> c.oid
       LEFT JOIN pg_class r ON r.oid = f.confrelid
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'S') AND c.relname <> 'schema_migrations'
      GROUP BY c.relname, c.relkind
      ORDER BY c.relname`,
    [schema],
  );
  const relations = rows as { name: string; kind: string; refers: string[] }[];
  const sequences = relations.filter((relation) => relation.kind === "S");
  // Referenced by nobody left: delete it, then what only it referred to is free.
  let tables = relations.filter((relation) => relation.kind === "r");
  const order: string[] = [];
  while (tables.length > 0) {
    const free = tables.filter(
      (table) => !tables.some((other) => other.refers.includes(table.name)),
    );
    if (free.length === 0) throw new Error(`Foreign keys in a cycle among ${tables.length} tables`);
    order.push(...free.map((table) => table.name));
    tables = tables.filter((table) => !free.includes(table));
  }
  const qualified = (name: string) => `${quoteIdent(schema)}.${quoteIdent(name)}`;
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  return [
    "DO $empty$ BEGIN",
    ...order.map((name) => `DELETE FROM ${qualified(name)};`),
    ...sequences.map(
      (sequence) => `PERFORM setval(${literal(qualified(sequence.name))}, 1, false);`,
    ),
    "END $empty$",
  ].join("\n");
}

/** Which database a storage suite runs on, for its name. */
export const suiteLabel = serverUrl === undefined ? "postgres (PGlite)" : "postgres (server)";

/**
 * A storage over `db`'s reused schema, emptied (`emptySchema`: as a fresh migration leaves it),
 * with its raw readers and a writer of corrupt values. Cases of a file run one at a time, so
 * each has the schema to itself; the migrations themselves are tested in migrations.test.ts.
 * `prepared` (server only) runs the storage's statements as named prepared statements, as
 * `tidings serve` does, on `db.namingPool()`: one pool for the file, as a process keeps one,
 * so a case finds some statements prepared by the cases before it and prepares others (a new
 * pool per case cost each case its connections' start-up, about half of this file's time).
 */
export async function freshStorageHarness(
  db: TestDatabase,
  options: { prepared?: boolean } = {},
): Promise<CorruptibleHarness> {
  const schema = await db.emptySchema();
  const client = options.prepared === true ? preparedStatements(db.namingPool()) : db.client;
  const storage = postgresStorage(client, { schema });
  return {
    storage,
    raw: postgresRawReaders(db.client, schema),
    async corrupt(table, column, literal, id, key = "id") {
      const target = `${quoteIdent(schema)}.${quoteIdent(table)}`;
      await db.client.query(`UPDATE ${target} SET ${column} = ${literal} WHERE ${key} = $1`, [id]);
    },
    async dispose() {
      await storage.close();
    },
  };
}
