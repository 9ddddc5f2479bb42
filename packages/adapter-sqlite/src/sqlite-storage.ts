import { AsyncLocalStorage } from "node:async_hooks";
import { type Repositories, rollingBackErrors, type Storage, storageHealth } from "@tidings/core";
import Database from "better-sqlite3";
import {
  type Checkpointer,
  FALLBACK_AUTOCHECKPOINT_PAGES,
  startCheckpointer,
} from "./checkpointer.js";
import { isDatabaseFile, keepDatabasePrivate } from "./database-file.js";
import { groupCommit } from "./group-commit.js";
import { migrate } from "./migrations.js";
import { batchedReads, withSeparateReads } from "./read-connection.js";
import { asyncRepositories, syncRepositories } from "./repositories.js";
import type { SqliteDatabase } from "./sqlite-database.js";
import { probeWritable, sqliteFault } from "./sqlite-faults.js";
import type { CallRunner } from "./sync-repository.js";
import { whileBusy } from "./while-busy.js";

export interface SqliteStorageOptions {
  /** Apply pending migrations on open (default `true`); `false` when the caller runs `migrate`. */
  migrate?: boolean | undefined;
  /**
   * How long a call waits for another process's write lock, in ms (default 5000), before it
   * fails with `StorageBusyError`. The wait is asynchronous: the event loop runs meanwhile.
   */
  busyTimeoutMs?: number | undefined;
  /**
   * `"normal"` (default) is durable against a crash of the process; `"full"` also against
   * power loss or an OS crash, at the cost of an fsync on every commit.
   */
  synchronous?: "normal" | "full" | undefined;
  /**
   * Reads outside transactions on a second, read-only connection to the same file (default
   * `true`; in-memory databases have none), so they never wait behind writes or behind another
   * process's write lock.
   */
  separateReads?: boolean | undefined;
  /**
   * Fail at once, instead of waiting forever, when a transaction callback calls this storage
   * instead of the `tx` repositories it was handed (default: on, unless `NODE_ENV` is
   * `production`). The check follows async context with `AsyncLocalStorage`, which on Node 20
   * turns on promise hooks and costs every request of the process about a tenth of its speed.
   */
  detectSelfCalls?: boolean | undefined;
  /**
   * WAL checkpoints on a background thread instead of inside whichever COMMIT crosses the
   * log's size limit (default `false`; in-memory databases have no WAL). See `startCheckpointer`.
   * On a 2-core machine it measured within noise and the thread costs about 7 MiB, so it is
   * off unless asked for; with cores to spare it takes the copy and the fsync off the loop.
   */
  backgroundCheckpoints?: boolean | undefined;
}

/**
 * Tidings storage on one SQLite connection (better-sqlite3): pass an open database handle or a
 * file path (`":memory:"` works too). Configures the connection (WAL, busy timeout, foreign
 * keys, temporary storage in memory, which drops the connection's own temporary tables),
 * applies pending migrations, and runs writes one at a time, committing the ones that
 * queue up together in one transaction (group commit).
 * `close()` closes the database only when this function opened it.
 *
 * Make one storage per database file per process and share it (HTTP server and delivery
 * engines alike): a second connection in the same process would block the event loop on
 * SQLite's write lock while the first holds it across an `await`. Separate processes are fine.
 * A database file this function creates is readable by its owner only (0600).
 *
 * When the disk is full, read-only or failing, calls reject with `StorageUnavailableError`
 * (nothing was written) and `health` turns unavailable until a write succeeds again or `ping`
 * finds the file writable with space to spare.
 */
export function sqliteStorage(
  dbOrPath: SqliteDatabase | string,
  options: SqliteStorageOptions = {},
): Storage {
  const ownsDatabase = typeof dbOrPath === "string";
  if (typeof dbOrPath === "string") keepDatabasePrivate(dbOrPath);
  const db: SqliteDatabase = typeof dbOrPath === "string" ? new Database(dbOrPath) : dbOrPath;
  const patienceMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000));
  try {
    // Opening may wait synchronously (nothing else runs yet); from here on the connection
    // never sleeps inside SQLite: `whileBusy` waits for the lock on a timer instead.
    db.exec(`PRAGMA busy_timeout = ${patienceMs}`);
    configure(db, options);
    if (options.migrate !== false) migrate(db);
    // Only now, so a migration that builds an index over a large table sorts in files.
    keepStatementJournalsInMemory(db);
    db.exec("PRAGMA busy_timeout = 0");
  } catch (error) {
    if (ownsDatabase) db.close();
    throw error;
  }

  const sync = syncRepositories(db);
  const reader = options.separateReads === false ? null : openReader(db);
  const group = groupCommit(db);
  const checkpointer =
    reader === null || db.name === undefined || options.backgroundCheckpoints !== true
      ? null
      : checkpointsOffThread(db, db.name);
  // Marks the async context of a transaction callback while it runs, to catch calls that would
  // otherwise wait for the very transaction they run in. Work the callback leaves behind (a
  // timer firing after the commit) inherits the context but sees `open` false and may proceed.
  const detectSelfCalls = options.detectSelfCalls ?? process.env.NODE_ENV !== "production";
  const insideTransaction = detectSelfCalls ? new AsyncLocalStorage<{ open: boolean }>() : null;
  const ping = db.prepare("SELECT 1");
  let closed = false;
  const health = storageHealth();
  const file =
    db.memory === false && db.name !== undefined && isDatabaseFile(db.name) ? db.name : undefined;
  /** A write noted for `health`, with a disk fault turned into `StorageUnavailableError`. */
  const observed = <T>(call: Promise<T>): Promise<T> =>
    health.observe(call, (error) => sqliteFault(error, file) ?? error);

  const assertUsable = (): void => {
    if (closed) throw new Error("The SQLite storage is closed.");
    if (insideTransaction?.getStore()?.open === true) {
      throw new Error(
        "Called the storage from inside one of its own transactions, which would wait for " +
          "itself forever; use the `tx` repositories handed to the transaction callback.",
      );
    }
  };
  /** `start()`, or a rejection when the storage may not be called now. */
  const whenUsable = <T>(start: () => Promise<T>): Promise<T> => {
    try {
      assertUsable();
    } catch (error) {
      return Promise.reject(error);
    }
    return start();
  };

  // Every write waits its turn on the one connection; the ones that queue up together share
  // one transaction and one COMMIT (`groupCommit`), each answered only once it is committed.
  const queued: CallRunner = (call) =>
    observed(whenUsable(() => group.run(call, "atomic", Date.now() + patienceMs)));

  const transaction = <T>(fn: (tx: Repositories) => Promise<T>): Promise<T> => {
    const work = async (): Promise<T> => {
      const scope = { open: true };
      const direct: CallRunner = (call) => {
        if (!scope.open) return Promise.reject(new Error("The transaction has already ended."));
        // SQLite rolls back on its own after some errors (disk full, I/O); going on would
        // write outside any transaction.
        if (!db.inTransaction) {
          return Promise.reject(new Error("The transaction was rolled back by SQLite."));
        }
        try {
          return Promise.resolve(call());
        } catch (error) {
          return Promise.reject(error);
        }
      };
      try {
        const repositories = asyncRepositories(sync, direct);
        return await (insideTransaction === null
          ? fn(repositories)
          : insideTransaction.run(scope, () => fn(repositories)));
      } finally {
        scope.open = false;
      }
    };
    return observed(whenUsable(() => group.run(work, "savepoint", Date.now() + patienceMs)));
  };

  // A read on the reader waits for nothing but (rarely) SQLite's own WAL bookkeeping.
  // Reads are not observed: a full or read-only disk still answers them, and the read
  // connection's refusal of a write (SQLITE_READONLY) is how `withSeparateReads` learns which
  // calls write; they run on the writer from then on, which is observed.
  const readNow: CallRunner = (call) => whenUsable(() => whileBusy(call, Date.now() + patienceMs));
  const batches = reader === null ? null : batchedReads(reader, readNow);
  const repositories = asyncRepositories(sync, queued);

  return {
    ...(reader === null || batches === null
      ? repositories
      : withSeparateReads(repositories, syncRepositories(reader), (call) =>
          whenUsable(() => batches.run(call)),
        )),
    transaction: rollingBackErrors(transaction),
    async ping() {
      if (closed) throw new Error("The SQLite storage is closed.");
      const probe = async () => {
        ping.get();
        if (file !== undefined) probeWritable(file);
      };
      await observed(probe());
    },
    health,
    async close() {
      if (closed) return;
      closed = true;
      // Let queued calls and the running transaction finish before the handle goes away.
      await group.idle();
      await checkpointer?.stop();
      batches?.flush();
      reader?.close();
      if (ownsDatabase) db.close();
    },
  };
}

/**
 * A read-only connection to `db`'s file, or `null` for an in-memory database (or a handle that
 * does not say where it lives). Opened after the migrations, so it sees the schema.
 */
function openReader(db: SqliteDatabase): SqliteDatabase | null {
  if (db.memory !== false || db.name === undefined || !isDatabaseFile(db.name)) return null;
  const reader = new Database(db.name, { readonly: true });
  reader.exec("PRAGMA busy_timeout = 0");
  return reader;
}

/**
 * Hands `db`'s checkpoints to a background thread; should that thread die, `db` checkpoints
 * on its own again at SQLite's default size.
 */
function checkpointsOffThread(db: SqliteDatabase, path: string): Checkpointer {
  db.exec(`PRAGMA wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  return startCheckpointer(path, () => db.exec("PRAGMA wal_autocheckpoint = 1000"));
}

/** Connection settings; PRAGMAs that cannot change inside a transaction, so set first. */
function configure(db: SqliteDatabase, options: SqliteStorageOptions): void {
  // WAL: readers never block the writer, and a commit is one append to the log.
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA foreign_keys = ON");
  // In WAL mode NORMAL syncs at checkpoints, not at every commit: a commit survives a crash or
  // SIGKILL of the process (it is in the OS's page cache), and only power loss can lose the
  // last commits. FULL closes that gap too, for callers who need it.
  db.exec(`PRAGMA synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
}

/**
 * Group commit runs each unit of work in a savepoint, and SQLite copies every page a savepoint
 * first changes into a statement journal, which it moves to a temporary file once it passes
 * 64 KiB. A send's unit changes more pages than that (its message alone is ten B-trees), so
 * from then on every page a group changed was also written to that file, one `write` each:
 * per-statement timing under sends put an event's insert at 9.9 µs against 4.1 µs with the
 * journal in memory. In memory it holds at most the pages of one unit and is freed at each
 * `RELEASE`; a group's first unit, such as a profile import running alone, has no savepoint
 * and no journal (see `groupCommit`). Sorts and temporary tables stay in memory too: the
 * writer's queries read by index and sort little; the reads that sort (the console's chart
 * groups a day of messages) run on the read connection where there is one, which keeps the
 * default.
 */
function keepStatementJournalsInMemory(db: SqliteDatabase): void {
  db.exec("PRAGMA temp_store = MEMORY");
}
