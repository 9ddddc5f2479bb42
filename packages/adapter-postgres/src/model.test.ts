import { runStorageModel } from "@tidings/core/testing";
import { freshStorageHarness, suiteLabel, testDatabaseOfFile } from "./testing/test-database.js";

// One database handle per file; every random sequence gets a fresh migrated schema, dropped after.
const db = testDatabaseOfFile();

runStorageModel(suiteLabel, () => freshStorageHarness(db), { numRuns: 10 });
