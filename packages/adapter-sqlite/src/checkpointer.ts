import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** How often the background thread moves the WAL's frames into the database file. */
export const CHECKPOINT_INTERVAL_MS = 200;

/**
 * The WAL size, in pages, at which the writer checkpoints on its own. Set far above what the
 * background thread lets the WAL reach, so it is only the fallback when that thread cannot
 * keep up or has stopped (SQLite's own default is 1,000).
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 16_000;

export interface Checkpointer {
  /** Stops the thread; the last connection to close checkpoints what is left. */
  stop(): Promise<void>;
}

// The thread's code: CommonJS, since an evaluated worker has no module of its own to resolve
// imports from; better-sqlite3 comes by the path the adapter resolved.
const THREAD = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 0");
let quietTurns = 0;
let truncated = false;
const turn = () => {
  try {
    const [state] = db.pragma("wal_checkpoint(PASSIVE)");
    // A WAL with nothing new for a while is cut back to zero bytes, so an idle database
    // leaves no large log behind. TRUNCATE gives up at once (busy) if a write is under way.
    quietTurns = state.log === 0 || state.log === state.checkpointed ? quietTurns + 1 : 0;
    if (state.log > 0) truncated = false;
    if (quietTurns >= workerData.quietTurns && !truncated) {
      const [cut] = db.pragma("wal_checkpoint(TRUNCATE)");
      truncated = cut.busy === 0;
    }
  } catch (error) {
    if (!String(error && error.code).startsWith("SQLITE_BUSY")) throw error;
  }
};
const timer = setInterval(turn, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Runs SQLite's WAL checkpoints on a thread of their own, over their own connection, instead
 * of inside the COMMIT that happens to cross the WAL's size limit. A checkpoint copies pages
 * and syncs the file, which would otherwise stall every request of the process behind that
 * one COMMIT. Every `intervalMs` a PASSIVE checkpoint (it never waits for, nor blocks, the
 * writer or the readers) copies what it can; when the WAL has been quiet for a few turns, a
 * TRUNCATE checkpoint shrinks its file to zero.
 *
 * `onFailure` hears if the thread dies (the database file removed, say); the caller then goes
 * back to checkpointing on the writer.
 */
export function startCheckpointer(
  path: string,
  onFailure: (error: unknown) => void,
  intervalMs = CHECKPOINT_INTERVAL_MS,
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: { path, driver, intervalMs, quietTurns: Math.ceil(1000 / intervalMs) },
  });
  worker.unref();
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.once("error", (error) => {
    if (!stopping) onFailure(error);
  });
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      // Held by the event loop until it has closed its connection and exited.
      worker.ref();
      worker.postMessage("stop");
      return exited;
    },
  };
}
