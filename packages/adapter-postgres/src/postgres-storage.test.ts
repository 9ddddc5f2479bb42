import { runCorruptRowContract, runStorageContract } from "@tidings/core/testing";
import { freshStorageHarness, suiteLabel, testDatabaseOfFile } from "./testing/test-database.js";

// One database handle per file (PGlite takes about a second to start); a fresh schema per test.
const db = testDatabaseOfFile();

runStorageContract(suiteLabel, () => freshStorageHarness(db));
runCorruptRowContract(suiteLabel, () => freshStorageHarness(db));
