import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh directory for one test's database file, and a way to delete it afterwards. */
export interface TempDatabaseFile {
  path: string;
  remove(): void;
}

/** Creates an empty temp directory and names a database file inside it (for tests). */
export function tempDatabaseFile(): TempDatabaseFile {
  const dir = mkdtempSync(join(tmpdir(), "tidings-sqlite-"));
  return {
    path: join(dir, "tidings.db"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
