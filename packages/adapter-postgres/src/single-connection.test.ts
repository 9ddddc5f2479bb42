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
import { aSchemaName, serverUrl } from "./testing/test-database.js";

// The whole contract again over one connection wrapped by `singleConnection`: a `pg.Client`
// on the server, PGlite's plain `query` (BEGIN and COMMIT sent as statements) otherwise.
let connection: PgTransactor;
let end: () => Promise<void>;

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
});
afterAll(async () => {
  await end?.();
});

async function freshStorage() {
  const schema = aSchemaName();
  await migrate(connection, { schema });
  const storage = postgresStorage(connection, { schema });
  return {
    storage,
    raw: postgresRawReaders(connection, schema),
    async dispose() {
      await storage.close();
      await connection.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    },
  };
}

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
