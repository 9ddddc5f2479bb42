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
    close: end,
  };
}

/** Which database a storage suite runs on, for its name. */
export const suiteLabel = serverUrl === undefined ? "postgres (PGlite)" : "postgres (server)";

/**
 * A storage over a fresh migrated schema of `db` with its raw readers and a writer of corrupt
 * values; dispose drops the schema. `prepared` (server only) runs the storage's statements as
 * named prepared statements, as `tidings serve` does, through a pool of its own that dispose
 * ends, so the statements each test's schema prepares do not pile up on shared connections.
 */
export async function freshStorageHarness(
  db: TestDatabase,
  options: { prepared?: boolean } = {},
): Promise<CorruptibleHarness> {
  const { schema, drop } = await db.freshSchema();
  const own = options.prepared === true ? newServerPool() : null;
  const storage = postgresStorage(own === null ? db.client : preparedStatements(own), { schema });
  return {
    storage,
    raw: postgresRawReaders(db.client, schema),
    async corrupt(table, column, literal, id, key = "id") {
      const target = `${quoteIdent(schema)}.${quoteIdent(table)}`;
      await db.client.query(`UPDATE ${target} SET ${column} = ${literal} WHERE ${key} = $1`, [id]);
    },
    async dispose() {
      await storage.close();
      await own?.end();
      await drop();
    },
  };
}
