import { runStorageModel } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { sqliteRawReaders } from "./raw-readers.js";
import { sqliteStorage } from "./sqlite-storage.js";

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
