import { PGlite } from "@electric-sql/pglite";
import { anOrganization, aProfile, runStorageContract } from "@tidings/core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "./migrations.js";
import type { PgTransactor } from "./pg-client.js";
import { singleConnection } from "./pg-client.js";
import { postgresStorage } from "./postgres-storage.js";
import { quoteIdent } from "./tables.js";
import { postgresRawReaders } from "./testing/raw-readers.js";
import { aSchemaName, emptySchemaScript, serverUrl } from "./testing/test-database.js";

// The whole contract again over one connection wrapped by `singleConnection`: a `pg.Client`
// on the server, PGlite's plain `query` (BEGIN and COMMIT sent as statements) otherwise. The
// schema is migrated once and emptied before each case by one statement of DELETEs (a
// TRUNCATE of every table cost some 600 ms a case on a loaded machine, DELETE milliseconds);
// the migrations themselves are tested in migrations.test.ts.
let connection: PgTransactor;
let end: () => Promise<void>;
let schema: string;
/** Every table the migrations made but their own bookkeeping, schema-qualified. */
let tables: string[];
/** Empties every one of `tables` and restarts the sequences (`emptySchemaScript`). */
let empty: string;

beforeAll(async () => {
  if (serverUrl !== undefined) {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    connection = singleConnection(client);
    end = () => client.end();
  } else {
    const pglite = await PGlite.create();
    connection = singleConnection({ query: (text, values) => pglite.query(text, values) });
    end = () => pglite.close();
  }
  schema = aSchemaName();
  await migrate(connection, { schema });
  const { rows } = await connection.query(
    "SELECT table_name FROM information_schema.tables " +
      "WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'",
    [schema],
  );
  tables = rows.map(
    (row) =>
      `${quoteIdent(schema)}.${quoteIdent(String((row as { table_name: string }).table_name))}`,
  );
  empty = await emptySchemaScript(connection, schema);
});
afterAll(async () => {
  await connection?.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  await end?.();
});

async function freshStorage() {
  await connection.query(empty);
  const storage = postgresStorage(connection, { schema });
  return {
    storage,
    raw: postgresRawReaders(connection, schema),
    dispose: () => storage.close(),
  };
}

it("empties every table the migrations made before each case", async () => {
  expect(tables.length).toBeGreaterThan(10);
  const { storage, dispose } = await freshStorage();
  try {
    const organization = anOrganization();
    await storage.organizations.insert(organization);
    await storage.profiles.insert(aProfile({ organizationId: organization.id }));
  } finally {
    await dispose();
  }
  await freshStorage().then(({ dispose }) => dispose());
  const counts = await Promise.all(
    tables.map(async (table) => {
      const { rows } = await connection.query(`SELECT count(*)::int AS n FROM ${table}`);
      return (rows[0] as { n: number }).n;
    }),
  );
  expect(counts.every((n) => n === 0)).toBe(true);
});

runStorageContract("postgres (single connection)", freshStorage);

describe("single connection", () => {
  it("a call through the storage inside its own transaction fails fast instead of waiting forever", async () => {
    const { storage, dispose } = await freshStorage();
    try {
      const organization = anOrganization();
      const attempt = storage.transaction(async () => {
        await storage.organizations.insert(organization);
      });
      await expect(attempt).rejects.toThrow(/use the `tx` repositories/);
      expect(await storage.organizations.get(organization.id)).toBeNull();
    } finally {
      await dispose();
    }
  });

  it("a profile insert through the storage inside its own transaction fails at once, even when another is queued before it", async () => {
    const { storage, dispose } = await freshStorage();
    try {
      const organization = anOrganization();
      await storage.organizations.insert(organization);
      const outside = aProfile({ organizationId: organization.id });
      const inside = aProfile({ organizationId: organization.id });
      // Profile inserts outside a transaction wait a turn to go together: the one queued
      // first must not carry the other past the check, nor the other wait for its own
      // transaction.
      const queued = storage.profiles.insert(outside);
      const attempt = storage.transaction(async () => {
        await storage.profiles.insert(inside);
      });
      await expect(attempt).rejects.toThrow(/use the `tx` repositories/);
      expect(await queued).toMatchObject({ id: outside.id });
      expect(await storage.profiles.get(organization.id, inside.id)).toBeNull();
    } finally {
      await dispose();
    }
  });
});
