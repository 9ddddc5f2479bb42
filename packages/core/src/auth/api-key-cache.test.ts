import { describe, expect, it } from "vitest";
import type { ApiKeyRecord, ApiKeyRepository, Storage } from "../ports.js";
import { manualClock } from "../support/clock.js";
import { anApiKey } from "../testing/contract/fixtures.js";
import { memoryStorage } from "../testing/memory/index.js";
import { type ApiKeyCacheOptions, cachingApiKeys } from "./api-key-cache.js";

const ORG = "org_00000000000000000000000001";

/**
 * The memory storage with API keys of its own, counting the reads that reach them; `hold` parks
 * the next read.
 */
function keyStore(...keys: ApiKeyRecord[]) {
  const rows = new Map(keys.map((key) => [key.id, key]));
  const reads: string[] = [];
  let held: (() => void) | null = null;
  const apiKeys: ApiKeyRepository = {
    insert: async (key) => {
      rows.set(key.id, key);
    },
    get: async (id) => {
      reads.push(id);
      const row = rows.get(id) ?? null;
      if (held !== null) await new Promise<void>((resolve) => (held = resolve));
      return row;
    },
    list: async () => [...rows.values()],
    revoke: async (id, at) => {
      const row = rows.get(id);
      if (row === undefined || row.revokedAt !== null) return false;
      rows.set(id, { ...row, revokedAt: at });
      return true;
    },
  };
  const storage: Storage = { ...memoryStorage(), apiKeys };
  return {
    storage,
    reads,
    /** Changes a row behind the cache's back, as another process would. */
    change: (id: string, changes: Partial<ApiKeyRecord>) => {
      const row = rows.get(id);
      if (row !== undefined) rows.set(id, { ...row, ...changes });
    },
    /** The next read waits until the returned function is called. */
    hold: () => {
      held = () => undefined;
      return () => {
        const release = held;
        held = null;
        release?.();
      };
    },
  };
}

/** `keys` in a `keyStore` behind a cache that trusts the change notices from the start. */
function trustedCache(keys: ApiKeyRecord[], options?: ApiKeyCacheOptions) {
  const store = keyStore(...keys);
  const cache = cachingApiKeys(store.storage, options);
  cache.trust(true);
  return { store, cache };
}

describe("cachingApiKeys", () => {
  it("reads every time until trusted, then answers from memory until the time limit", async () => {
    const key = anApiKey({ organizationId: ORG });
    const store = keyStore(key);
    const clock = manualClock();
    const cache = cachingApiKeys(store.storage, { ttlMs: 5_000, now: clock.now });
    await cache.storage.apiKeys.get(key.id);
    await cache.storage.apiKeys.get(key.id);
    expect(store.reads).toHaveLength(2);

    cache.trust(true);
    expect(await cache.storage.apiKeys.get(key.id)).toEqual(key);
    expect(await cache.storage.apiKeys.get(key.id)).toEqual(key);
    expect(store.reads).toHaveLength(3);
    clock.advance(4_999);
    await cache.storage.apiKeys.get(key.id);
    expect(store.reads).toHaveLength(3);
    clock.advance(1);
    await cache.storage.apiKeys.get(key.id);
    expect(store.reads).toHaveLength(4);
  });

  it("forgets a key when told it changed, or every key, and reads it afresh", async () => {
    const [a, b] = [anApiKey({ organizationId: ORG }), anApiKey({ organizationId: ORG })];
    const { store, cache } = trustedCache([a, b]);
    await cache.storage.apiKeys.get(a.id);
    await cache.storage.apiKeys.get(b.id);
    store.change(a.id, { revokedAt: "2026-01-01T00:00:01.000Z" });
    cache.forget(a.id);
    expect((await cache.storage.apiKeys.get(a.id))?.revokedAt).toBe("2026-01-01T00:00:01.000Z");
    await cache.storage.apiKeys.get(b.id);
    expect(store.reads).toEqual([a.id, b.id, a.id]);
    cache.forget(null);
    await cache.storage.apiKeys.get(b.id);
    expect(store.reads).toEqual([a.id, b.id, a.id, b.id]);
  });

  it("forgets a key revoked through it before the revocation answers", async () => {
    const key = anApiKey({ organizationId: ORG });
    const { cache } = trustedCache([key]);
    await cache.storage.apiKeys.get(key.id);
    expect(await cache.storage.apiKeys.revoke(key.id, "2026-01-01T00:00:01.000Z")).toBe(true);
    expect((await cache.storage.apiKeys.get(key.id))?.revokedAt).toBe("2026-01-01T00:00:01.000Z");
  });

  it("keeps nothing while not trusted, and forgets everything when trust ends", async () => {
    const key = anApiKey({ organizationId: ORG });
    const { store, cache } = trustedCache([key]);
    await cache.storage.apiKeys.get(key.id);
    cache.trust(false);
    store.change(key.id, { revokedAt: "2026-01-01T00:00:01.000Z" });
    expect((await cache.storage.apiKeys.get(key.id))?.revokedAt).toBe("2026-01-01T00:00:01.000Z");
    await cache.storage.apiKeys.get(key.id);
    expect(store.reads).toHaveLength(3);
  });

  it("does not keep a read that was under way when a key changed", async () => {
    const key = anApiKey({ organizationId: ORG });
    const { store, cache } = trustedCache([key]);
    const release = store.hold();
    const reading = cache.storage.apiKeys.get(key.id);
    // The row changes and the notice arrives while the read is still on its way back.
    store.change(key.id, { revokedAt: "2026-01-01T00:00:01.000Z" });
    cache.forget(key.id);
    release();
    expect((await reading)?.revokedAt).toBeNull();
    expect((await cache.storage.apiKeys.get(key.id))?.revokedAt).toBe("2026-01-01T00:00:01.000Z");
  });

  it("never keeps an unknown id, keeps at most maxKeys, and hands out frozen records", async () => {
    const keys = [1, 2, 3].map(() => anApiKey({ organizationId: ORG }));
    const { store, cache } = trustedCache(keys, { maxKeys: 2 });
    await cache.storage.apiKeys.get("key_unknown");
    await cache.storage.apiKeys.get("key_unknown");
    expect(store.reads).toEqual(["key_unknown", "key_unknown"]);
    for (const key of keys) await cache.storage.apiKeys.get(key.id);
    store.reads.length = 0;
    // The oldest kept went when the third came in.
    for (const key of [keys[1], keys[2], keys[0]]) await cache.storage.apiKeys.get(key?.id ?? "");
    expect(store.reads).toEqual([keys[0]?.id]);
    const kept = await cache.storage.apiKeys.get(keys[2]?.id ?? "");
    expect(Object.isFrozen(kept)).toBe(true);
    expect(Object.isFrozen(kept?.scopes)).toBe(true);
  });
});
