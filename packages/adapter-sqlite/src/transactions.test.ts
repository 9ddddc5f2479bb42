import { setTimeout as sleep } from "node:timers/promises";
import type { Storage } from "@tidings/core";
import { aProfile, at } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";
import { sqliteStorage } from "./sqlite-storage.js";

const ORG = "org_00000000000000000000000001";

async function withCounter(): Promise<{ storage: Storage; profileId: string }> {
  const storage = sqliteStorage(":memory:");
  const stored = await storage.profiles.insert(
    aProfile({ organizationId: ORG, attributes: { n: 0 } }),
  );
  if (stored === "phone_number_taken") throw new Error("seed failed");
  return { storage, profileId: stored.id };
}

/** A promise and the function that resolves it, to hold a transaction open on cue. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe("transaction on one connection", () => {
  it("20 concurrent read-await-write transactions never interleave and lose no update", async () => {
    const { storage, profileId } = await withCounter();
    const log: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        storage.transaction(async (tx) => {
          log.push(`begin ${i}`);
          const profile = await tx.profiles.get(ORG, profileId);
          if (profile === null) throw new Error("missing");
          await sleep(i % 3); // yield to the event loop, where the other 19 are waiting
          const n = Number(profile.attributes.n);
          await tx.profiles.update({ ...profile, attributes: { n: n + 1 }, updatedAt: at(n + 1) });
          log.push(`end ${i}`);
        }),
      ),
    );
    // Each begin is directly followed by its own end: no transaction started inside another.
    for (let k = 0; k < log.length; k += 2) {
      expect(log[k + 1]).toBe(log[k]?.replace("begin", "end"));
    }
    expect((await storage.profiles.get(ORG, profileId))?.attributes).toEqual({ n: 20 });
    await storage.close();
  });

  it("a rejected callback writes nothing and its error reaches the caller", async () => {
    const { storage } = await withCounter();
    const profile = aProfile({ organizationId: ORG });
    const failure = new Error("changed my mind");
    await expect(
      storage.transaction(async (tx) => {
        await tx.profiles.insert(profile);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await storage.profiles.get(ORG, profile.id)).toBeNull();
    await storage.close();
  });

  it("the resolved value is returned and everything written through tx is committed", async () => {
    const { storage } = await withCounter();
    const profile = aProfile({ organizationId: ORG });
    const result = await storage.transaction(async (tx) => {
      await tx.profiles.insert(profile);
      await tx.rateLimits.hit("key", 1, 1000, 5);
      return "done";
    });
    expect(result).toBe("done");
    expect(await storage.profiles.get(ORG, profile.id)).not.toBeNull();
    expect((await storage.rateLimits.hit("key", 2, 1000, 5)).remaining).toBe(3);
    await storage.close();
  });

  it("a call made outside while a transaction is open waits for it and is not rolled back with it", async () => {
    const { storage } = await withCounter();
    const inside = aProfile({ organizationId: ORG });
    const outside = aProfile({ organizationId: ORG });
    const hold = gate();
    const events: string[] = [];
    const tx = storage.transaction(async (repos) => {
      await repos.profiles.insert(inside);
      await hold.opened;
      events.push("transaction ends");
      throw new Error("roll back");
    });
    const write = storage.profiles.insert(outside).then(() => events.push("outside write done"));
    const read = storage.profiles.get(ORG, inside.id);
    await sleep(5);
    expect(events).toEqual([]);
    hold.open();
    await expect(tx).rejects.toThrow("roll back");
    await write;
    expect(events).toEqual(["transaction ends", "outside write done"]);
    // The read ran after the rollback: it never saw the uncommitted profile.
    expect(await read).toBeNull();
    expect(await storage.profiles.get(ORG, outside.id)).not.toBeNull();
    await storage.close();
  });

  it("an expected refusal inside a transaction does not abort it", async () => {
    const { storage } = await withCounter();
    const first = aProfile({ organizationId: ORG });
    const clash = aProfile({ organizationId: ORG, phoneNumber: first.phoneNumber });
    const later = aProfile({ organizationId: ORG });
    await storage.transaction(async (tx) => {
      await tx.profiles.insert(first);
      expect(await tx.profiles.insert(clash)).toBe("phone_number_taken");
      await tx.profiles.insert(later);
    });
    expect(await storage.profiles.get(ORG, first.id)).not.toBeNull();
    expect(await storage.profiles.get(ORG, later.id)).not.toBeNull();
    await storage.close();
  });

  it("calling the outer storage from inside its own transaction fails fast instead of deadlocking", async () => {
    const { storage, profileId } = await withCounter();
    await expect(storage.transaction(() => storage.profiles.get(ORG, profileId))).rejects.toThrow(
      /inside one of its own transactions/,
    );
    await expect(storage.transaction(() => storage.transaction(async () => 1))).rejects.toThrow(
      /inside one of its own transactions/,
    );
    // The storage is still usable afterwards.
    expect(await storage.profiles.get(ORG, profileId)).not.toBeNull();
    await storage.close();
  });

  it("work a transaction leaves behind may use the storage once it has committed", async () => {
    const { storage, profileId } = await withCounter();
    let later: Promise<unknown> = Promise.resolve();
    await storage.transaction(async () => {
      later = sleep(5).then(() => storage.profiles.get(ORG, profileId));
    });
    expect(await later).not.toBeNull();
    await storage.close();
  });

  it("tx repositories kept past their transaction refuse to run", async () => {
    const { storage, profileId } = await withCounter();
    const kept = await storage.transaction(async (tx) => tx);
    await expect(kept.profiles.get(ORG, profileId)).rejects.toThrow(/already ended/);
    await storage.close();
  });

  it("close waits for the running transaction, then every call rejects", async () => {
    const { storage, profileId } = await withCounter();
    const hold = gate();
    const tx = storage.transaction(async (repos) => {
      await hold.opened;
      return repos.profiles.get(ORG, profileId);
    });
    const closing = storage.close();
    hold.open();
    expect(await tx).not.toBeNull();
    await closing;
    await expect(storage.profiles.get(ORG, profileId)).rejects.toThrow(/closed/);
    await expect(storage.transaction(async () => 1)).rejects.toThrow(/closed/);
    await expect(storage.ping()).rejects.toThrow(/closed/);
  });
});
