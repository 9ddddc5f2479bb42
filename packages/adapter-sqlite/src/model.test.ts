import { runStorageModel } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { sqliteStorage } from "./sqlite-storage.js";
import { sqliteRawReaders } from "./testing/raw-readers.js";

// Every random sequence gets a fresh in-memory database; the raw readers share its connection.
runStorageModel(
  "sqlite",
  async () => {
    const db = new Database(":memory:");
    const storage = sqliteStorage(db);
    return {
      storage,
      raw: sqliteRawReaders(db),
      async dispose() {
        await storage.close();
        db.close();
      },
    };
  },
  { numRuns: 100 },
);
