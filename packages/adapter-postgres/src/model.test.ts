import { runStorageModel } from "@tidings/core/testing";
import { afterAll, beforeAll } from "vitest";
import type { TestDatabase } from "./testing/test-database.js";
import { freshStorageHarness, openTestDatabase, suiteLabel } from "./testing/test-database.js";

// One database handle per file; every random sequence gets a fresh migrated schema, dropped after.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

runStorageModel(suiteLabel, () => freshStorageHarness(db), { numRuns: 10 });
