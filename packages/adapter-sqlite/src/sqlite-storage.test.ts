import { runCorruptRowContract, runStorageContract } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { sqliteStorage } from "./sqlite-storage.js";
import { sqliteRawReaders } from "./testing/raw-readers.js";
import { tempDatabaseFile } from "./testing/temp-database.js";

// Each test gets its own database file. The raw readers use a second connection, so they see
// only what was committed, as an independent reader would; a third writes corrupt values.
async function freshHarness() {
  const file = tempDatabaseFile();
  const storage = sqliteStorage(file.path);
  const reader = new Database(file.path, { readonly: true });
  return {
    storage,
    raw: sqliteRawReaders(reader),
    async corrupt(table: string, column: string, literal: string, id: string, key = "id") {
      const writer = new Database(file.path);
      try {
        writer.prepare(`UPDATE ${table} SET ${column} = ${literal} WHERE ${key} = ?`).run(id);
      } finally {
        writer.close();
      }
    },
    async dispose() {
      reader.close();
      await storage.close();
      file.remove();
    },
  };
}

runStorageContract("sqlite", freshHarness);
runCorruptRowContract("sqlite", freshHarness);
