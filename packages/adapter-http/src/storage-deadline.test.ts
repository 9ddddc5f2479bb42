import { setTimeout as sleep } from "node:timers/promises";
import { isStorageUnavailable, type Repositories, type Storage } from "@tidings/core";
import { anOrganization, memoryStorage } from "@tidings/core/testing";
import { describe, expect, it, vi } from "vitest";
import { deadlineWatch, storageWithDeadline } from "./storage-deadline.js";
import { httpWorld } from "./testing/http-world.js";

/** `storage` whose API key reads answer only after `ms`, as a database that stalls would. */
const slowKeys = (storage: Storage, ms: number): Storage => ({
  ...storage,
  apiKeys: {
    ...storage.apiKeys,
    get: async (id) => {
      await sleep(ms);
      return storage.apiKeys.get(id);
    },
  },
});

describe("a request's time in storage", () => {
  it("refuses every call once the budget is spent, asking nothing of storage", async () => {
    const storage = memoryStorage();
    const spent = storageWithDeadline(storage, Date.now() - 1000, 10);
    const refused = await spent.organizations.insert(anOrganization()).catch((e: unknown) => e);
    expect(isStorageUnavailable(refused)).toBe(true);
    expect(refused).toMatchObject({ reason: "unreachable", outcome: "unchanged" });
    const transaction = await spent.transaction(async () => "ran").catch((e: unknown) => e);
    expect(isStorageUnavailable(transaction)).toBe(true);
    // Within the budget, calls go through.
    const fresh = storageWithDeadline(storage, Date.now(), 60_000);
    const org = anOrganization();
    await fresh.organizations.insert(org);
    expect(await storage.organizations.get(org.id)).not.toBeNull();
    expect(fresh.health).toBe(storage.health);
  });

  it("rolls back a transaction that calls storage after its budget ran out", async () => {
    const storage = memoryStorage();
    const bounded = storageWithDeadline(storage, Date.now(), 30);
    const first = anOrganization();
    const second = anOrganization();
    const outcome = await bounded
      .transaction(async (tx) => {
        await tx.organizations.insert(first);
        // The budget runs out here, so the transaction's next call is refused.
        await sleep(80);
        await tx.organizations.insert(second);
      })
      .catch((e: unknown) => e);
    expect(outcome).toMatchObject({ name: "StorageUnavailableError", outcome: "unchanged" });
    // The callback, cut off, goes on by itself: its next call is refused.
    await sleep(120);
    expect(await storage.organizations.get(first.id)).toBeNull();
    expect(await storage.organizations.get(second.id)).toBeNull();
  });

  it("cuts off a call storage never answers, saying whether it may have written", async () => {
    const storage = memoryStorage();
    const hang = (repositories: Repositories): Repositories => ({
      ...repositories,
      organizations: {
        ...repositories.organizations,
        get: () => new Promise(() => undefined),
        insert: () => new Promise(() => undefined),
      },
    });
    const hanging: Storage = {
      ...storage,
      ...hang(storage),
      transaction: (fn) => storage.transaction((tx) => fn(hang(tx))),
    };
    const read = await storageWithDeadline(hanging, Date.now(), 30)
      .organizations.get("org_x")
      .catch((e: unknown) => e);
    // A read writes nothing, whatever happened to it.
    expect(read).toMatchObject({ name: "StorageUnavailableError", outcome: "unchanged" });
    const alone = await storageWithDeadline(hanging, Date.now(), 30)
      .organizations.insert(anOrganization())
      .catch((e: unknown) => e);
    // A statement on its own may have been written before storage stopped answering.
    expect(alone).toMatchObject({ name: "StorageUnavailableError", outcome: "unknown" });
    const inTransaction = await storageWithDeadline(hanging, Date.now(), 30)
      .transaction((tx) => tx.organizations.insert(anOrganization()))
      .catch((e: unknown) => e);
    // A transaction cut off before its COMMIT rolls back.
    expect(inTransaction).toMatchObject({ name: "StorageUnavailableError", outcome: "unchanged" });
  });

  it("one watch ends each request's calls at that request's own deadline", async () => {
    vi.useFakeTimers();
    try {
      const storage = memoryStorage();
      const never: Storage = {
        ...storage,
        organizations: { ...storage.organizations, get: () => new Promise(() => undefined) },
      };
      const watch = deadlineWatch();
      const started = Date.now();
      const settled: string[] = [];
      const call = (name: string, budgetMs: number) =>
        storageWithDeadline(never, started, budgetMs, watch)
          .organizations.get("org_x")
          .then(
            () => settled.push(`${name} answered`),
            (error: unknown) => settled.push(`${name} ${(error as Error).name}`),
          );
      // The later deadline is watched first, so the sooner one has to bring the timer forward.
      const late = call("late", 300);
      const soon = call("soon", 40);
      // A call that answers leaves the watch and ends nothing else.
      const org = anOrganization();
      await storageWithDeadline(storage, started, 300, watch).organizations.insert(org);
      await vi.advanceTimersByTimeAsync(39);
      expect(settled).toEqual([]);
      await vi.advanceTimersByTimeAsync(2);
      expect(settled).toEqual(["soon StorageUnavailableError"]);
      await vi.advanceTimersByTimeAsync(258);
      expect(settled).toEqual(["soon StorageUnavailableError"]);
      await vi.advanceTimersByTimeAsync(2);
      expect(settled).toEqual(["soon StorageUnavailableError", "late StorageUnavailableError"]);
      await Promise.all([soon, late]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers 503 storage_unavailable, nothing changed, when a read outlasts the request's budget", async () => {
    const world = await httpWorld({ storageTimeoutMs: 500 });
    world.deps.storage = slowKeys(world.storage, 1000);
    const answer = await world.request("POST", "/v1/profiles", {
      body: { phone_number: "+14155552671" },
    });
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBe("1");
    expect(answer.json).toMatchObject({ code: "storage_unavailable", changed: false });
    const listed = await world.storage.profiles.list({
      organizationId: world.main.organizationId,
      limit: 10,
    });
    expect(listed).toEqual([]);

    // The same request with time to spare is answered.
    world.deps.storage = world.storage;
    const created = await world.request("POST", "/v1/profiles", {
      body: { phone_number: "+14155552671" },
    });
    expect(created.status).toBe(201);
  });
});

describe("GET /readyz", () => {
  it("answers 503 not_ready when the storage's probe does not answer in time", async () => {
    const world = await httpWorld({ readyTimeoutMs: 20 });
    expect((await world.request("GET", "/readyz", { token: null })).status).toBe(200);
    world.deps.storage = { ...world.storage, ping: () => new Promise<void>(() => undefined) };
    const hung = await world.request("GET", "/readyz", { token: null });
    expect(hung.status).toBe(503);
    expect(hung.headers["retry-after"]).toBe("1");
    expect(hung.json.code).toBe("not_ready");
  });
});
