import { runStorageModel } from "@tidings/core/testing";
import { afterAll, beforeAll } from "vitest";
import { postgresStorage } from "./postgres-storage.js";
import { postgresRawReaders } from "./raw-readers.js";
import type { TestDatabase } from "./test-database.js";
import { openTestDatabase, serverUrl } from "./test-database.js";

// One database handle per file; every random sequence gets a fresh migrated schema, dropped after.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

runStorageModel(
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
  { numRuns: 10 },
);
