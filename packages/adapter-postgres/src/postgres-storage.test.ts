import { runCorruptRowContract, runStorageContract } from "@tidings/core/testing";
import { afterAll, beforeAll } from "vitest";
import type { TestDatabase } from "./testing/test-database.js";
import { freshStorageHarness, openTestDatabase, suiteLabel } from "./testing/test-database.js";

// One database handle per file (PGlite takes about a second to start); a fresh schema per test.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

runStorageContract(suiteLabel, () => freshStorageHarness(db));
runCorruptRowContract(suiteLabel, () => freshStorageHarness(db));
