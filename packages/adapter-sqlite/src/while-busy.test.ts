import { StorageBusyError } from "@tidings/core";
import { seedOrganization, within } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sqliteStorage } from "./sqlite-storage.js";
import { tempDatabaseFile } from "./testing/temp-database.js";

/**
 * Another process's long write (an import, say) holds SQLite's write lock. A second connection
 * on the same file plays that process here.
 */
async function withLockHeldElsewhere(
  run: (storage: ReturnType<typeof sqliteStorage>, release: () => void) => Promise<void>,
  options: { busyTimeoutMs?: number } = {},
): Promise<void> {
  const file = tempDatabaseFile();
  const storage = sqliteStorage(file.path, options);
  const other = new Database(file.path);
  other.exec("BEGIN IMMEDIATE");
  const release = () => {
    if (other.inTransaction) other.exec("COMMIT");
  };
  try {
    await run(storage, release);
  } finally {
    release();
    other.close();
    await storage.close();
    file.remove();
  }
}

describe("waiting for another process's write lock (sqliteStorage)", () => {
  it("waits on a timer, so the event loop keeps running, and goes on once the lock is free", async () => {
    await withLockHeldElsewhere(
      async (storage, release) => {
        const events: string[] = [];
        const seeding = seedOrganization(storage);
        const inTransaction = storage.transaction(async (tx) => tx.organizations.get("org_none"));
        void seeding.then(() => events.push("written"));
        // The lock is freed by a timer of this very process: had SQLite's own busy wait held
        // the event loop, the timer could not run before the writes gave up busy.
        setTimeout(() => {
          events.push("released");
          release();
        }, 50);
        const org = await seeding;
        expect(events).toEqual(["released", "written"]);
        expect(await storage.organizations.get(org.organization.id)).toEqual(org.organization);
        expect(await inTransaction).toBeNull();
      },
      { busyTimeoutMs: 60_000 },
    );
  });

  it("reads do not wait behind a write that waits for the lock: they see the last commit", async () => {
    await withLockHeldElsewhere(
      async (storage, release) => {
        const events: string[] = [];
        const write = storage.organizations.insert({
          id: "org_01890000000070008000000001",
          name: "Waiting",
          createdAt: "2026-01-01T00:00:00.000Z",
        });
        void write.then(() => events.push("written"));
        // Let the write try once, find the lock taken, and wait on its timer.
        await new Promise((resolve) => setImmediate(resolve));
        // Bounded, so a read queued behind the write fails here instead of waiting a minute.
        const reads = Promise.all([
          storage.organizations.get("org_01890000000070008000000001"),
          storage.apiKeys.get("key_none"),
        ]);
        expect(await within(10_000, "reads while a write waits", reads)).toEqual([null, null]);
        events.push("read");
        release();
        await write;
        expect(events).toEqual(["read", "written"]);
        expect(await storage.organizations.get("org_01890000000070008000000001")).toMatchObject({
          name: "Waiting",
        });
      },
      { busyTimeoutMs: 60_000 },
    );
  });

  it("gives up after busyTimeoutMs with StorageBusyError, having written nothing", async () => {
    await withLockHeldElsewhere(
      async (storage, release) => {
        const started = Date.now();
        const write = storage.organizations.insert({
          id: "org_01890000000070008000000000",
          name: "Blocked",
          createdAt: "2026-01-01T00:00:00.000Z",
        });
        await expect(write).rejects.toBeInstanceOf(StorageBusyError);
        expect(Date.now() - started).toBeGreaterThanOrEqual(150);
        await expect(
          storage.transaction(async (tx) => tx.organizations.get("org_none")),
        ).rejects.toBeInstanceOf(StorageBusyError);
        release();
        expect(await storage.organizations.get("org_01890000000070008000000000")).toBeNull();
      },
      { busyTimeoutMs: 200 },
    );
  });

  it("the patience counts from when a call was made, also for calls queued behind others", async () => {
    await withLockHeldElsewhere(
      async (storage) => {
        const writes = Array.from({ length: 5 }, (_, i) =>
          storage.organizations.insert({
            id: `org_0189000000007000800000000${i}`,
            name: "Blocked",
            createdAt: "2026-01-01T00:00:00.000Z",
          }),
        );
        const events: string[] = [];
        writes.forEach((write, i) => {
          write.catch(() => events.push(`write ${i} gave up`));
        });
        await writes[0]?.catch(() => undefined);
        // Once the first has given up, the patience of the queued ones is spent too: each
        // gives up before a timer of a third of a patience, set now, fires. A patience of
        // their own would have each of them wait 300 ms more, in turn.
        await new Promise((resolve) => setTimeout(() => resolve(events.push("100 ms later")), 100));
        expect(events).toEqual(
          [0, 1, 2, 3, 4].map((i) => `write ${i} gave up`).concat("100 ms later"),
        );
        const outcomes = await Promise.allSettled(writes);
        expect(
          outcomes.every((o) => o.status === "rejected" && o.reason instanceof StorageBusyError),
        ).toBe(true);
      },
      { busyTimeoutMs: 300 },
    );
  });
});
