import type { Repositories } from "@tidings/core";
import type { SyncRepositories } from "./repositories.js";
import type { CallRunner } from "./sync-repository.js";

/** Whether SQLite refused a statement because the connection is read-only. */
const isReadOnlyRefusal = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_READONLY");
};

/**
 * The repositories with reads moved to a read-only connection of their own. In WAL mode that
 * connection reads the last committed state without any lock, so a read never waits behind
 * writes queued on the main connection, nor behind another process's write lock (an import).
 *
 * Which calls only read is learned, not listed: each method is first tried on the read-only
 * connection; one that writes is refused there by SQLite before it changes anything, runs on
 * `writer` instead, and goes straight there from then on. `readNow` runs a call on the reader.
 */
export function withSeparateReads(
  writer: Repositories,
  reader: SyncRepositories,
  readNow: CallRunner,
): Repositories {
  const writes = new Set<string>();
  const routed: Record<string, Record<string, unknown>> = {};
  for (const [repository, methods] of Object.entries(writer)) {
    const readers = reader[repository as keyof SyncRepositories] as Record<string, unknown>;
    const table: Record<string, unknown> = {};
    for (const [name, write] of Object.entries(methods as Record<string, unknown>)) {
      const key = `${repository}.${name}`;
      const onWriter = write as (...args: unknown[]) => Promise<unknown>;
      const onReader = readers[name] as (...args: unknown[]) => unknown;
      table[name] = async (...args: unknown[]) => {
        if (!writes.has(key)) {
          try {
            return await readNow(() => onReader(...args));
          } catch (error) {
            if (!isReadOnlyRefusal(error)) throw error;
            writes.add(key);
          }
        }
        return onWriter(...args);
      };
    }
    routed[repository] = table;
  }
  return routed as unknown as Repositories;
}
