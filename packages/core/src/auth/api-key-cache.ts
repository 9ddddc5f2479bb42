import type { ApiKeyRecord, Storage } from "../ports.js";
import { noticedMemory } from "../support/noticed-memory.js";

export interface ApiKeyCacheOptions {
  /** How long a key read from storage is answered from memory (5000 ms). */
  ttlMs?: number | undefined;
  /** How many keys are kept; the oldest kept goes first (10 000). */
  maxKeys?: number | undefined;
  /** A clock in milliseconds for the time limit (`performance.now`, which never goes back). */
  now?: (() => number) | undefined;
}

/** Storage whose `apiKeys.get` may answer from memory, and what keeps that memory true. */
export interface ApiKeyCache {
  storage: Storage;
  /** A key changed (revoked, deleted), or with `null` any key may have: forgotten at once. */
  forget(keyId: string | null): void;
  /**
   * Whether every change to a key is being announced to `forget` (the change notices are
   * arriving). While not, nothing is kept, and whatever was is forgotten: a change made
   * meanwhile would go unnoticed.
   */
  trust(trusted: boolean): void;
}

/**
 * `storage` with API keys read once and then answered from memory for a few seconds: on
 * PostgreSQL that spares every authenticated request one of its round trips. Memory is only
 * used while `trust(true)` says every change to a key is announced to `forget` (on PostgreSQL,
 * by the schema's triggers over LISTEN/NOTIFY), so a revoked key stops working on every process
 * as soon as the revocation commits; the time limit bounds what a lost announcement could cost.
 * A key revoked through this storage is forgotten here before the revocation answers. Unknown
 * ids are never kept (they cost a read each, as before). Reads inside a transaction go to the
 * database. A read that was under way when a key changed is not kept: it may predate the change.
 */
export function cachingApiKeys(storage: Storage, options: ApiKeyCacheOptions = {}): ApiKeyCache {
  const memory = noticedMemory<ApiKeyRecord>({ ...options, maxEntries: options.maxKeys });
  const { forget } = memory;
  const get = (id: string): Promise<ApiKeyRecord | null> =>
    memory.get(
      id,
      () => storage.apiKeys.get(id),
      (key) => Object.freeze({ ...key, scopes: Object.freeze([...key.scopes]) }) as ApiKeyRecord,
    );

  return {
    storage: {
      ...storage,
      apiKeys: {
        ...storage.apiKeys,
        get,
        async revoke(id, at) {
          try {
            return await storage.apiKeys.revoke(id, at);
          } finally {
            forget(id);
          }
        },
      },
    },
    forget,
    trust: memory.trust,
  };
}
