import { chmodSync, closeSync, existsSync, openSync, statSync } from "node:fs";

/** The database file and the two SQLite keeps beside it in WAL mode. */
const filesOf = (path: string): string[] => [path, `${path}-wal`, `${path}-shm`];

/** Whether `path` names a file on disk, not an in-memory or temporary database or a URI. */
export const isDatabaseFile = (path: string): boolean =>
  path !== "" && path !== ":memory:" && !path.startsWith("file:");

/**
 * Makes the database file readable by its owner only (0600), before SQLite opens it: it holds
 * phone numbers, names and stored answers. A missing file is created so; SQLite gives the
 * `-wal` and `-shm` files it creates later the database file's mode. Existing files readable
 * by others are narrowed to 0600 too, as the key file beside them is.
 */
export function keepDatabasePrivate(path: string): void {
  if (!isDatabaseFile(path)) return;
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  for (const file of filesOf(path)) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}
