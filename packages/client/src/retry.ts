import type { TidingsError } from "./errors.js";

/**
 * Whether repeating a request is harmless: a read, a delete, a call the API documents as
 * repeatable (activating a campaign), or a write sent with an `Idempotency-Key`, which the
 * server answers once and replays after. Any other write is `unsafe`.
 */
export type Safety = "idempotent" | "unsafe";

/** The first backoff ceiling; it doubles with each retry up to `MAX_BACKOFF_MS`. */
export const BASE_BACKOFF_MS = 500;
export const MAX_BACKOFF_MS = 8_000;
/** A `Retry-After` longer than this is not waited out: the error goes to the caller. */
export const MAX_RETRY_AFTER_SECONDS = 60;

/**
 * Whether a failed attempt may be repeated. An idempotent request is retried on a network
 * failure or a timeout, 408, 409 `idempotency_in_progress`, 429 and every 5xx. An unsafe one
 * only where the server provably did not act on it: 429, 503 `storage_busy` and 503
 * `storage_unavailable` with `changed: false` (the server says nothing changed) and a refused
 * connection (the request never reached it).
 */
export function isRetryable(safety: Safety, error: TidingsError): boolean {
  if (error.retryAfter !== null && error.retryAfter > MAX_RETRY_AFTER_SECONDS) return false;
  if (error.status === 429) return true;
  if (error.status === 503 && error.code === "storage_busy") return true;
  if (error.status === 503 && error.code === "storage_unavailable" && error.changed === false) {
    return true;
  }
  if (error.status === 0 && isConnectionRefused(error.cause)) return true;
  if (safety === "unsafe") return false;
  return (
    error.code === "network_error" ||
    error.code === "timeout" ||
    error.status === 408 ||
    (error.status === 409 && error.code === "idempotency_in_progress") ||
    error.status >= 500
  );
}

/**
 * The wait before retry number `retry` (0 for the first): "full jitter", a uniform draw up to
 * a ceiling that doubles each time, so clients that failed together do not return together;
 * never sooner than the server's `Retry-After`.
 */
export function backoffMs(
  retry: number,
  retryAfter: number | null,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** retry);
  return Math.max(Math.floor(random() * ceiling), (retryAfter ?? 0) * 1000);
}

/**
 * Whether a fetch failed because nothing accepted the connection: Node's and Deno's fetch say
 * `ECONNREFUSED` in the cause, Bun `ConnectionRefused`. Browsers do not tell, so there an
 * unsafe write that failed on the network is not retried.
 */
function isConnectionRefused(cause: unknown): boolean {
  for (let error = cause, depth = 0; error && depth < 4; depth++) {
    const code = (error as { code?: unknown }).code;
    if (code === "ECONNREFUSED" || code === "ConnectionRefused") return true;
    const errors = (error as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some((inner) => isConnectionRefused(inner))) return true;
    error = (error as { cause?: unknown }).cause;
  }
  return false;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", aborted, { once: true });
  });
}
