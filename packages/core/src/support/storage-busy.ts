/**
 * Thrown by a storage adapter when the database stayed locked by another process (a long
 * import, say) for longer than the adapter waits. The operation did nothing and may be retried;
 * the HTTP adapter answers 503 with `Retry-After`.
 */
export class StorageBusyError extends Error {
  override readonly name = "StorageBusyError";
  constructor(waitedMs: number, options?: { cause?: unknown }) {
    super(`The database stayed locked by another process for ${waitedMs} ms.`, options);
  }
}
