import { existsSync } from "node:fs";
import { dirname } from "node:path";
import {
  keepDatabasePrivate,
  migrate as migrateSqlite,
  sqliteStorage,
  webhookBacklog,
} from "@tidings/adapter-sqlite";
import Database from "better-sqlite3";
import type { DatabaseConfig } from "../config.js";
import type { Logger } from "../logger.js";
import { ConfigError } from "../secret-key.js";
import type { OpenedStorage } from "./opened-storage.js";

/** A SQLite database needs an existing directory (for the file and its key file beside it). */
export function assertDatabaseDirectory(database: DatabaseConfig): void {
  if (database.kind !== "sqlite" || database.path === ":memory:") return;
  if (!existsSync(dirname(database.path))) {
    throw new ConfigError(
      `TIDINGS_DATABASE_URL points into ${dirname(database.path)}, which does not exist.`,
    );
  }
}

/**
 * Opens the database named by `TIDINGS_DATABASE_URL` and applies pending migrations first
 * (docs/decisions.md "CLI": every command does), so no command ever runs on an old schema.
 */
export async function openStorage(
  database: DatabaseConfig,
  logger?: Logger,
): Promise<OpenedStorage> {
  if (database.kind === "postgres") {
    const { openPostgresStorage } = await import("./open-postgres-storage.js");
    return openPostgresStorage(database.url, logger);
  }
  assertDatabaseDirectory(database);
  keepDatabasePrivate(database.path);
  const db = new Database(database.path);
  try {
    const migrations = migrateSqlite(db);
    const storage = sqliteStorage(db, { migrate: false, synchronous: database.synchronous });
    return {
      storage,
      migrations,
      webhookBacklog: async (now) => webhookBacklog(db, now),
      // Read back, not echoed from the configuration: what the writes will actually get.
      settings: {
        sqlite_synchronous: db.pragma("synchronous", { simple: true }) === 2 ? "full" : "normal",
      },
      async close() {
        await storage.close();
        // sqliteStorage leaves a handle it was given open; this one is ours.
        if (db.open) db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
