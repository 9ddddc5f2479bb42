import {
  type StorageFaultOutcome,
  type StorageFaultReason,
  StorageUnavailableError,
} from "@tidings/core";

/**
 * Failures that happen before a connection exists, so nothing can have been written: the server
 * refuses connections, is starting up or shutting down (57P03), or has no connection slot left
 * (53300).
 */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "57P03",
  "53300",
  "08001",
  "08004",
]);

/** Error codes (Node's and PostgreSQL's SQLSTATE) that mean the database is out of reach. */
const REASONS: ReadonlyMap<string, StorageFaultReason> = new Map([
  ...[...NOT_CONNECTED].map((code) => [code, "unreachable"] as const),
  // The connection broke: reset, timed out, or the backend was terminated (57P01, by an
  // administrator or a fast shutdown; 57P02, a crash of another backend; 57P04, the database
  // was dropped; 57P05, an idle session timeout).
  ...["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED", "57P01", "57P02", "57P04", "57P05"].map(
    (code) => [code, "unreachable"] as const,
  ),
  // Class 08: connection exceptions.
  ...["08000", "08003", "08006", "08007", "08P01"].map((code) => [code, "unreachable"] as const),
  ["53100", "disk_full"],
  // A primary that failed over to a standby, or a server set read-only.
  ["25006", "read_only"],
  ["58030", "io_error"],
]);

/** What `pg` throws, without a code, when the connection is gone. */
const BROKEN_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Query read timeout)/;

/**
 * `error` as a `StorageUnavailableError` when it says PostgreSQL is out of reach, full or
 * read-only; `null` for anything else (a constraint, a bug, a bad statement). `outcome` is what
 * the caller knows was written, unless the error itself proves nothing was (no connection).
 */
export function pgFault(
  error: unknown,
  outcome: StorageFaultOutcome,
): StorageUnavailableError | null {
  if (error instanceof StorageUnavailableError) return error.withOutcome(outcome);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    const reason = REASONS.get(code);
    if (reason === undefined) return null;
    return new StorageUnavailableError(reason, NOT_CONNECTED.has(code) ? "unchanged" : outcome, {
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : "";
  return BROKEN_CONNECTION.test(message)
    ? new StorageUnavailableError("unreachable", outcome, { cause: error })
    : null;
}

/**
 * Whether `error` is the driver giving up on a statement the server has not answered within
 * the client's `query_timeout` (a frozen server, a network that drops packets). The statement
 * is still in flight on its connection, which can take no other statement before it: the
 * connection is to be destroyed, not rolled back. The server rolls back a transaction whose
 * connection goes away before its COMMIT.
 */
export const isQueryTimeout = (error: unknown): boolean =>
  error instanceof Error && error.message.startsWith("Query read timeout");

/** `error` turned into a `StorageUnavailableError` where it is one, else as it was. */
export const asPgFault = (error: unknown, outcome: StorageFaultOutcome): unknown =>
  pgFault(error, outcome) ?? error;
