import { runStorageContract } from "@tidings/core/testing";
import { afterAll, beforeAll } from "vitest";
import { postgresStorage } from "./postgres-storage.js";
import { postgresRawReaders } from "./raw-readers.js";
import type { TestDatabase } from "./test-database.js";
import { openTestDatabase, serverUrl } from "./test-database.js";

// One database handle per file (PGlite takes about a second to start); a fresh schema per test.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

runStorageContract(
  serverUrl === undefined ? "postgres (PGlite)" : "postgres (server)",
  async () => {
    const { schema, drop } = await db.freshSchema();
    const storage = postgresStorage(db.client, { schema });
    return {
      storage,
      raw: postgresRawReaders(db.client, schema),
      async dispose() {
        await storage.close();
        await drop();
      },
    };
  },
);
