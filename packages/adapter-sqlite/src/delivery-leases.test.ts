import type { Storage } from "@tidings/core";
import { aDelivery, at, aUuid, completeOne } from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteStorage } from "./sqlite-storage.js";
import type { TempDatabaseFile } from "./testing/temp-database.js";
import { tempDatabaseFile } from "./testing/temp-database.js";

const ORG = "org_00000000000000000000000001";
const LEASE_MS = 30_000;

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function fileStorage(file: TempDatabaseFile): Storage {
  const storage = sqliteStorage(file.path);
  cleanup.push(() => storage.close());
  return storage;
}

function databaseFile(): TempDatabaseFile {
  const file = tempDatabaseFile();
  cleanup.push(() => file.remove());
  return file;
}

/** Stores `count` due deliveries (no message: deliveries need only their event id). */
async function seedDue(storage: Storage, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const delivery = aDelivery({
      organizationId: ORG,
      eventId: aUuid(),
      destination: { kind: "message", url: "https://example.com/hook", apiKeyId: "key_x" },
      nextAttemptAt: at(i / 1000),
    });
    await storage.deliveries.insert(delivery);
    ids.push(delivery.id);
  }
  return ids;
}

describe("delivery leases", () => {
  it("engines on one storage claiming at once each get distinct deliveries, all of them", async () => {
    const file = databaseFile();
    const storage = fileStorage(file);
    const ids = await seedDue(storage, 60);
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        storage.deliveries.claimDue(at(10), 10, `engine-${i}`, LEASE_MS),
      ),
    );
    const claimed = claims.flat().map((d) => d.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect([...claimed].sort()).toEqual([...ids].sort());
  });

  it("two connections to one file (two processes) never lease the same delivery", async () => {
    const file = databaseFile();
    const a = fileStorage(file);
    const b = fileStorage(file);
    const ids = await seedDue(a, 40);
    const rounds = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a : b).deliveries.claimDue(at(10), 5, `engine-${i}`, LEASE_MS),
      ),
    );
    const claimed = rounds.flat().map((d) => d.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect([...claimed].sort()).toEqual([...ids].sort());
  });

  it("a restarted engine leaves a dead engine's leases alone until they expire, then takes them", async () => {
    const file = databaseFile();
    const before = sqliteStorage(file.path);
    const [id] = await seedDue(before, 1);
    expect(
      (await before.deliveries.claimDue(at(10), 5, "old-engine", LEASE_MS)).map((d) => d.id),
    ).toEqual([id]);
    await before.close(); // the process dies holding the lease

    const after = fileStorage(file);
    expect(
      await after.deliveries.claimDue(at(10 + LEASE_MS / 1000 - 1), 5, "new-engine", LEASE_MS),
    ).toEqual([]);
    const retaken = await after.deliveries.claimDue(
      at(10 + LEASE_MS / 1000),
      5,
      "new-engine",
      LEASE_MS,
    );
    expect(retaken.map((d) => [d.id, d.leaseOwner])).toEqual([[id, "new-engine"]]);
    // The old engine's late completion is refused: exactly one engine delivers each attempt.
    const late = await completeOne(after.deliveries, id ?? "", "old-engine", {
      attempt: {
        deliveryId: id ?? "",
        organizationId: ORG,
        attempt: 0,
        startedAt: at(11),
        durationMs: 5,
        statusCode: 200,
        error: null,
        responseBody: null,
      },
      next: { status: "delivered" },
    });
    expect(late).toBe(false);
  });
});
