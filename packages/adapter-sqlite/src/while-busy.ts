import { setTimeout as sleep } from "node:timers/promises";
import { StorageBusyError } from "@tidings/core";

/** Whether better-sqlite3 threw because another connection holds the lock it needs. */
export const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
};

/** The longest pause between two tries. */
const MAX_PAUSE_MS = 50;

/**
 * Runs `attempt`, and again while SQLite answers busy, pausing between tries on a timer. SQLite's
 * own busy wait would sleep inside the call and block the event loop, and with it every other
 * request of this process, for as long as another process holds the write lock. `attempt` must
 * change nothing when it fails busy: one statement, or a `BEGIN IMMEDIATE` before any write.
 * Busy at `deadline` (epoch ms; the caller sets it when it asked, so time spent queued behind
 * other calls counts), it throws `StorageBusyError`.
 */
export async function whileBusy<T>(attempt: () => T, deadline: number): Promise<T> {
  const asked = Date.now();
  for (let pause = 1; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (Date.now() + pause > deadline) {
        throw new StorageBusyError(Date.now() - asked, { cause: error });
      }
      await sleep(pause);
    }
  }
}
