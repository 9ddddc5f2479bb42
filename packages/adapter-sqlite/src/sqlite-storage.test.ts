import { runStorageContract } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { sqliteRawReaders } from "./raw-readers.js";
import { sqliteStorage } from "./sqlite-storage.js";
import { tempDatabaseFile } from "./temp-database.js";

// Each test gets its own database file. The raw readers use a second connection, so they see
// only what was committed, as an independent reader would.
runStorageContract("sqlite", async () => {
  const file = tempDatabaseFile();
  const storage = sqliteStorage(file.path);
  const reader = new Database(file.path, { readonly: true });
  return {
    storage,
    raw: sqliteRawReaders(reader),
    async dispose() {
      reader.close();
      await storage.close();
      file.remove();
    },
  };
});
