import { StorageBusyError } from "@tidings/core";
import { seedOrganization } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sqliteStorage } from "./sqlite-storage.js";
import { tempDatabaseFile } from "./temp-database.js";

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
    await withLockHeldElsewhere(async (storage, release) => {
      let ticks = 0;
      const ticker = setInterval(() => {
        ticks += 1;
      }, 5);
      const seeding = seedOrganization(storage);
      const inTransaction = storage.transaction(async (tx) => tx.organizations.get("org_none"));
      await new Promise((resolve) => setTimeout(resolve, 200));
      clearInterval(ticker);
      // SQLite's own busy wait would have held the loop for the whole 200 ms.
      expect(ticks).toBeGreaterThan(10);
      release();
      const org = await seeding;
      expect(await storage.organizations.get(org.organization.id)).toEqual(org.organization);
      expect(await inTransaction).toBeNull();
    });
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
        const started = Date.now();
        const writes = Array.from({ length: 5 }, (_, i) =>
          storage.organizations.insert({
            id: `org_0189000000007000800000000${i}`,
            name: "Blocked",
            createdAt: "2026-01-01T00:00:00.000Z",
          }),
        );
        const outcomes = await Promise.allSettled(writes);
        expect(
          outcomes.every((o) => o.status === "rejected" && o.reason instanceof StorageBusyError),
        ).toBe(true);
        // One patience for all, not one each in turn (which would take 5 × 300 ms).
        expect(Date.now() - started).toBeLessThan(1_200);
      },
      { busyTimeoutMs: 300 },
    );
  });
});
