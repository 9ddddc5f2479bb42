import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  keepDatabasePrivate,
  migrate as migrateSqlite,
  scheduledMessageCount,
  sqliteFault,
  sqliteStorage,
  webhookBacklog,
} from "@tidings/adapter-sqlite";
import type { StorageUnavailableError } from "@tidings/core";
import Database from "better-sqlite3";
import {
  type DatabaseConfig,
  DEFAULT_STORAGE_TIMEOUT_MS,
  databaseDirectoryProblem,
} from "../config.js";
import type { Logger } from "../logger.js";
import { ConfigError } from "../secret-key.js";
import type { OpenedStorage } from "./opened-storage.js";

/**
 * A SQLite database needs an existing directory this process may write to (for the file, its
 * journal and the key file beside it): `readConfig` says so too, for embedders who skip it.
 */
export function assertDatabaseDirectory(database: DatabaseConfig): void {
  const problem = databaseDirectoryProblem(database);
  if (problem !== null) throw new ConfigError(problem);
}

/** What to do about a SQLite database on a read-only file system; "" for any other fault. */
function readOnlyHint(database: DatabaseConfig, reason: string): string {
  if (database.kind !== "sqlite" || reason !== "read_only") return "";
  return `. The directory ${dirname(database.path)} is on a read-only file system: mount a writable volume there.`;
}

/** The longest pause between two tries at start-up. */
const MAX_STARTUP_PAUSE_MS = 2000;

/**
 * Opens the database named by `TIDINGS_DATABASE_URL` and applies pending migrations first
 * (docs/decisions.md "CLI": every command does), so no command ever runs on an old schema.
 * While the database cannot be reached (PostgreSQL down or starting, SQLite's disk full or
 * read-only), it tries again with growing pauses for up to `timeoutMs`, logging each try, then
 * fails with the last reason.
 */
export async function openStorage(
  database: DatabaseConfig,
  logger?: Logger,
  options: {
    timeoutMs?: number | undefined;
    /**
     * The longest any one wait on storage lasts once it is open (`TIDINGS_STORAGE_TIMEOUT_MS`):
     * for a PostgreSQL connection and each statement's answer, for SQLite's write lock.
     */
    storageTimeoutMs?: number | undefined;
  } = {},
): Promise<OpenedStorage> {
  const deadline = Date.now() + (options.timeoutMs ?? 0);
  const faultOf = await faultClassifier(database);
  let pause = 250;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openOnce(
        database,
        logger,
        options.storageTimeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS,
      );
    } catch (error) {
      const fault = faultOf(error);
      if (fault === null) throw error;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `The database is unavailable (${fault.reason}) and did not come back within ${options.timeoutMs ?? 0} ms (TIDINGS_STARTUP_TIMEOUT_MS): ${fault.cause instanceof Error ? fault.cause.message : fault.message}${readOnlyHint(database, fault.reason)}`,
          { cause: error },
        );
      }
      const wait = Math.min(pause, left);
      logger?.warn("storage unavailable at start-up; trying again", {
        attempt,
        reason: fault.reason,
        error: fault.cause instanceof Error ? fault.cause.message : fault.message,
        retry_in_ms: wait,
      });
      await sleep(wait);
      pause = Math.min(pause * 2, MAX_STARTUP_PAUSE_MS);
    }
  }
}

/** How the database's adapter tells a storage fault from any other failure. */
async function faultClassifier(
  database: DatabaseConfig,
): Promise<(error: unknown) => StorageUnavailableError | null> {
  if (database.kind !== "postgres") return (error) => sqliteFault(error, database.path);
  const { pgFault } = await import("@tidings/adapter-postgres");
  return (error) => pgFault(error, "unchanged");
}

async function openOnce(
  database: DatabaseConfig,
  logger: Logger | undefined,
  storageTimeoutMs: number,
): Promise<OpenedStorage> {
  if (database.kind === "postgres") {
    const { openPostgresStorage } = await import("./open-postgres-storage.js");
    return openPostgresStorage(database.url, logger, storageTimeoutMs);
  }
  assertDatabaseDirectory(database);
  keepDatabasePrivate(database.path);
  const db = new Database(database.path);
  try {
    const migrations = migrateSqlite(db);
    const storage = sqliteStorage(db, {
      migrate: false,
      synchronous: database.synchronous,
      // Another process's write lock (an import, a stuck script) is waited for a little less
      // than a request's whole time in storage, so the request answers 503 `storage_busy`
      // (counted as such) rather than racing its own deadline to `storage_unavailable`.
      busyTimeoutMs: Math.max(50, Math.floor(storageTimeoutMs * 0.8)),
    });
    return {
      storage,
      migrations,
      webhookBacklog: async (now) => webhookBacklog(db, now),
      scheduledMessages: async () => scheduledMessageCount(db),
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
