import type {
  StorageFaultOutcome,
  StorageFaultReason,
  StorageHealth,
  StorageHealthChange,
} from "../ports/storage.js";

export type {
  StorageFaultOutcome,
  StorageFaultReason,
  StorageHealth,
  StorageHealthChange,
} from "../ports/storage.js";
/**
 * Thrown by a storage adapter when the database cannot be used at all for now: PostgreSQL
 * restarting or dropping connections, SQLite's disk full or read-only. The HTTP adapter answers
 * 503 `storage_unavailable` with `Retry-After`; the error says whether anything was written.
 */
export class StorageUnavailableError extends Error {
  override readonly name = "StorageUnavailableError";
  readonly reason: StorageFaultReason;
  readonly outcome: StorageFaultOutcome;
  constructor(
    reason: StorageFaultReason,
    outcome: StorageFaultOutcome,
    options?: { cause?: unknown },
  ) {
    const cause = options?.cause instanceof Error ? `: ${options.cause.message}` : "";
    super(`Storage is unavailable (${reason})${cause}`, options);
    this.reason = reason;
    this.outcome = outcome;
  }

  /** The same fault, with an outcome no better than `outcome` (`unknown` wins). */
  withOutcome(outcome: StorageFaultOutcome): StorageUnavailableError {
    if (this.outcome === "unknown" || outcome === "unchanged") return this;
    return new StorageUnavailableError(this.reason, "unknown", { cause: this.cause });
  }
}

/** A `StorageUnavailableError`, also one thrown by another copy of @tidings/core. */
export const isStorageUnavailable = (error: unknown): error is StorageUnavailableError =>
  error instanceof StorageUnavailableError ||
  (error instanceof Error && error.name === "StorageUnavailableError");

/** The mark `markNothingWritten` sets, shared by every copy of @tidings/core. */
const NOTHING_WRITTEN = Symbol.for("tidings.nothingWritten");

/**
 * Marks `error` as the failure of a transaction that never reached its COMMIT, and returns it:
 * nothing of it was written. A storage adapter marks what its transactions throw when it knows
 * (a statement failed before COMMIT, the callback threw), so the core can tell a failure that
 * left nothing behind from one that may have committed.
 */
export function markNothingWritten(error: unknown): unknown {
  // Once is enough: the same error may pass through more than one transaction on its way out.
  if (
    typeof error === "object" &&
    error !== null &&
    !wroteNothing(error) &&
    Object.isExtensible(error)
  ) {
    Object.defineProperty(error, NOTHING_WRITTEN, { value: true });
  }
  return error;
}

/**
 * Whether `error` says that nothing was written: marked by `markNothingWritten`, or a storage
 * fault whose outcome is `unchanged`.
 */
export const wroteNothing = (error: unknown): boolean =>
  (isStorageUnavailable(error) && error.outcome === "unchanged") ||
  (typeof error === "object" &&
    error !== null &&
    (error as { [NOTHING_WRITTEN]?: unknown })[NOTHING_WRITTEN] === true);

/** The adapters' side of `StorageHealth`: what they tell it. */
export interface StorageHealthTracker extends StorageHealth {
  /** A write or probe succeeded. */
  succeeded(): void;
  /** Notes `error` when it is a `StorageUnavailableError`; anything else changes nothing. */
  failed(error: unknown): void;
  /**
   * `call`, its outcome noted: success makes storage available, a rejection is replaced by
   * `asFault(error)` (the adapter's `StorageUnavailableError` for it, or the error as it was)
   * and noted.
   */
  observe<T>(call: Promise<T>, asFault: (error: unknown) => unknown): Promise<T>;
}

/** A `StorageHealthTracker`; `now` is injectable for tests. */
export function storageHealth(now: () => number = Date.now): StorageHealthTracker {
  let since: number | null = null;
  const listeners = new Set<(change: StorageHealthChange) => void>();
  const tell = (change: StorageHealthChange) => {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch {
        // A listener's failure is its own; the others still hear of the change.
      }
    }
  };
  const succeeded = () => {
    if (since === null) return;
    const unavailableForMs = now() - since;
    since = null;
    tell({ available: true, unavailableForMs });
  };
  const failed = (error: unknown) => {
    if (since !== null || !isStorageUnavailable(error)) return;
    since = now();
    tell({ available: false, error });
  };
  return {
    isAvailable: () => since === null,
    unavailableSince: () => since,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    succeeded,
    failed,
    observe: (call, asFault) =>
      call.then(
        (value) => {
          succeeded();
          return value;
        },
        (error: unknown) => {
          const fault = asFault(error);
          failed(fault);
          throw fault;
        },
      ),
  };
}
