import type { Repositories } from "@tidings/core";
import type { SyncRepositories } from "./repositories.js";
import type { SqliteDatabase } from "./sqlite-database.js";
import type { CallRunner } from "./sync-repository.js";
import { isBusy } from "./while-busy.js";

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
      // Not an async function: a read is the promise `readNow` makes, with no layer around it.
      table[name] = (...args: unknown[]) =>
        writes.has(key)
          ? onWriter(...args)
          : readNow(() => onReader(...args)).catch((error: unknown) => {
              if (!isReadOnlyRefusal(error)) throw error;
              writes.add(key);
              return onWriter(...args);
            });
    }
    routed[repository] = table;
  }
  return routed as unknown as Repositories;
}

interface Read {
  call: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs reads on `reader` in batches: the reads asked during one turn of the event loop run
 * together at its end, inside one read transaction. Each statement outside a transaction would
 * open and close a snapshot of its own (shared-memory locks and a check of the WAL for each);
 * a batch pays for that once. No write of this process can land inside a batch (it runs in one
 * synchronous stretch), and a read asked after a write was answered runs in a later batch, so
 * it sees that write. A read that finds the database busy (rare: SQLite's own WAL recovery) is
 * tried again alone by `retry`.
 */
export function batchedReads(
  reader: SqliteDatabase,
  retry: CallRunner,
): { run: CallRunner; flush(): void } {
  let batch: Read[] = [];
  // Prepared once: `exec` parses its text on every call, a few microseconds each in a busy server.
  const begin = reader.prepare("BEGIN");
  const commit = reader.prepare("COMMIT");
  const flush = (): void => {
    if (batch.length === 0) return;
    const reads = batch;
    batch = [];
    let began = false;
    try {
      begin.run();
      began = true;
    } catch {
      // Without a transaction each read simply takes its own snapshot.
    }
    const busy: Read[] = [];
    for (const read of reads) {
      try {
        read.resolve(read.call());
      } catch (error) {
        if (isBusy(error)) busy.push(read);
        else read.reject(error);
      }
    }
    if (began && reader.inTransaction) commit.run();
    for (const read of busy) retry(read.call).then(read.resolve, read.reject);
  };
  const run = <T>(call: () => T) =>
    new Promise<T>((resolve, reject) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push({ call, resolve: resolve as (value: unknown) => void, reject });
    });
  return { run, flush };
}
