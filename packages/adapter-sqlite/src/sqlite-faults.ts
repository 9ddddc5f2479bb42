import { accessSync, constants, statfsSync } from "node:fs";
import { dirname } from "node:path";
import { type StorageFaultReason, StorageUnavailableError } from "@tidings/core";

/**
 * SQLite's result codes (better-sqlite3's `code`, extended codes included) and Node's file
 * system codes that mean the database cannot be written for now, by their prefix.
 */
const REASONS: ReadonlyArray<readonly [string, StorageFaultReason]> = [
  ["SQLITE_FULL", "disk_full"],
  ["ENOSPC", "disk_full"],
  ["SQLITE_READONLY", "read_only"],
  ["EROFS", "read_only"],
  ["SQLITE_IOERR", "io_error"],
  ["SQLITE_CANTOPEN", "io_error"],
  ["EIO", "io_error"],
];

/**
 * `error` as a `StorageUnavailableError` when it says the disk is full, read-only or failing;
 * `null` for anything else. Nothing was written: SQLite rolls back a transaction whose write or
 * COMMIT fails, and the storage answers no write before its COMMIT succeeded. With the
 * database's `path`, an error that only says SQLite could not open or write a file
 * (SQLITE_CANTOPEN, SQLITE_IOERR) is told apart by a look at its file system.
 */
export function sqliteFault(error: unknown, path?: string): StorageUnavailableError | null {
  if (error instanceof StorageUnavailableError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  const found = REASONS.find(([prefix]) => code.startsWith(prefix));
  if (found === undefined) return null;
  let reason = found[1];
  if (reason === "io_error" && path !== undefined) {
    try {
      probeWritable(path);
    } catch (probed) {
      if (probed instanceof StorageUnavailableError) reason = probed.reason;
    }
  }
  return new StorageUnavailableError(reason, "unchanged", { cause: error });
}

/** Below this much free space on its file system, the database counts as full. */
export const MIN_FREE_BYTES = 1024 * 1024;

/**
 * Checks that the database file can still be written: its file system is not read-only and has
 * at least `MIN_FREE_BYTES` free. Reading `SELECT 1` succeeds on a full or read-only disk, so
 * `/readyz` would say ready while every write fails; this says why it is not. Throws
 * `StorageUnavailableError`.
 */
export function probeWritable(path: string): void {
  try {
    accessSync(path, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A file that does not exist yet (an in-memory name, say) has nothing to check.
    if (code === "ENOENT") return;
    throw code === "EROFS"
      ? new StorageUnavailableError("read_only", "unchanged", { cause: error })
      : error;
  }
  const { bavail, bsize } = statfsSync(dirname(path));
  if (bavail * bsize < MIN_FREE_BYTES) {
    const cause = Object.assign(
      new Error(`${bavail * bsize} bytes free on the database's file system`),
      { code: "ENOSPC" },
    );
    throw new StorageUnavailableError("disk_full", "unchanged", { cause });
  }
}
