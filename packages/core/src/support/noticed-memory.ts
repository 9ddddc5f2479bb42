/** How long, and how many, records `noticedMemory` keeps. */
export interface NoticedMemoryOptions {
  /** How long a record read from storage is answered from memory (5000 ms). */
  ttlMs?: number | undefined;
  /** How many records are kept; the oldest kept goes first (10 000). */
  maxEntries?: number | undefined;
  /** A clock in milliseconds for the time limit (`performance.now`, which never goes back). */
  now?: (() => number) | undefined;
}

/** Records kept by id while every change to them is announced (see `noticedMemory`). */
export interface NoticedMemory<V> {
  /**
   * `id`'s record: from memory while trusted and not expired, else `read()`, kept (as `freeze`
   * makes it) when found and nothing changed while it was read.
   */
  get(id: string, read: () => Promise<V | null>, freeze: (record: V) => V): Promise<V | null>;
  /** A record changed, or with `null` any may have: forgotten at once. */
  forget(id: string | null): void;
  /**
   * Whether every change is being announced to `forget` (the change notices are arriving).
   * While not, nothing is kept, and whatever was is forgotten: a change made meanwhile would
   * go unnoticed.
   */
  trust(trusted: boolean): void;
}

const DEFAULT_TTL_MS = 5_000;
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Memory for records that rarely change and are read on every request (API keys, campaigns):
 * used only while `trust(true)` says every change is announced to `forget` (on PostgreSQL, by
 * the schema's triggers over LISTEN/NOTIFY), so a change made by any process takes effect here
 * as soon as its notice arrives; the time limit bounds what a lost notice could cost. Unknown
 * ids are never kept (they cost a read each). A read that was under way when anything changed
 * is not kept: it may predate the change.
 */
export function noticedMemory<V>(options: NoticedMemoryOptions = {}): NoticedMemory<V> {
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const now = options.now ?? (() => performance.now());
  const kept = new Map<string, { record: V; until: number }>();
  let trusted = false;
  /** Moves on with every change, so a read that spans one is not kept. */
  let changes = 0;

  const forget = (id: string | null): void => {
    changes += 1;
    if (id === null) kept.clear();
    else kept.delete(id);
  };

  return {
    async get(id, read, freeze) {
      const hit = trusted ? kept.get(id) : undefined;
      if (hit !== undefined) {
        if (hit.until > now()) return hit.record;
        kept.delete(id);
      }
      const before = changes;
      // The time limit runs from before the read: a slow read does not lengthen it.
      const readAt = now();
      const record = await read();
      if (record !== null && trusted && changes === before) {
        if (kept.size >= maxEntries) {
          const oldest = kept.keys().next();
          if (oldest.done !== true) kept.delete(oldest.value);
        }
        // Shared by every request that reads it until it expires: frozen, so none can change it.
        kept.set(id, { record: freeze(record), until: readAt + ttlMs });
      }
      return record;
    },
    forget,
    trust(value) {
      // Only a change of trust forgets: a process that lost notices may have missed any change.
      if (value === trusted) return;
      trusted = value;
      forget(null);
    },
  };
}
