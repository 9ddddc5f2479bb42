import type { Clock, DispatchResult } from "../ports.js";
import type { ProviderLogger } from "./provider-logger.js";
import { retryAfterMs } from "./retry-after.js";
import { upstreamError } from "./upstream-errors.js";
import type { UpstreamTry } from "./upstream-retry.js";

/**
 * The answers every provider adapter gives to the same kinds of upstream answer, written once so
 * the adapters differ only where their providers do: what counts as accepted, what each error
 * body says, which failures are safe to send again.
 */

/** How often refused credentials are logged at error level: every send fails until fixed. */
export const UNAUTHORIZED_LOG_EVERY_MS = 60_000;

/** The first value of a header as undici gives it (a string, several, or none). */
export const firstHeader = (value: string | string[] | undefined): string | null =>
  value === undefined ? null : Array.isArray(value) ? (value[0] ?? null) : value;

/** A response body as a JSON object, or `{}` when it is not JSON (a proxy's HTML page, say). */
export async function jsonOrEmpty(body: {
  json(): Promise<unknown>;
}): Promise<Record<string, unknown>> {
  try {
    const value = await body.json();
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The upstream could not take the message now: unreachable, timed out, rate limiting, a 5xx. */
export const upstreamUnavailable = (
  provider: string,
  why: string,
  code: string | number | null = null,
): DispatchResult => ({
  status: "rejected",
  error: upstreamError("upstream_unavailable", why, provider, code),
});

/** The upstream refused the message itself; trying again would not help. */
export const upstreamRejected = (
  provider: string,
  message: string,
  code: string | number | null,
): UpstreamTry<DispatchResult> => ({
  retry: false,
  value: { status: "rejected", error: upstreamError("upstream_rejected", message, provider, code) },
});

/** A 429: tried again within the deadline, never sooner than its `Retry-After`. */
export const upstreamRateLimited = (
  provider: string,
  why: string,
  code: string | number | null,
  retryAfter: string | null,
  nowMs: number,
): UpstreamTry<DispatchResult> => ({
  retry: true,
  value: upstreamUnavailable(provider, why, code),
  retryAfterMs: retryAfterMs(retryAfter, nowMs),
});

/** What `credentialsRefusal` needs to say refused credentials loudly. */
export interface CredentialsRefusalOptions {
  provider: string;
  clock: Clock;
  logger?: Pick<ProviderLogger, "error"> | undefined;
  /** The error log line, e.g. "Twilio refused the credentials: every SMS will fail until…". */
  logLine: string;
  /** The message error's start, e.g. "Twilio refused Tidings' credentials". */
  refusal: string;
}

/**
 * The answer to a 401 or 403: the message fails with `upstream_unauthorized`, and the refusal is
 * logged at error level at most once a minute, since every send fails until someone fixes it.
 */
export function credentialsRefusal(
  options: CredentialsRefusalOptions,
): (status: number, said: string, code: string | number | null) => UpstreamTry<DispatchResult> {
  let loggedAt = Number.NEGATIVE_INFINITY;
  return (status, said, code) => {
    const now = options.clock.now();
    if (now - loggedAt >= UNAUTHORIZED_LOG_EVERY_MS) {
      loggedAt = now;
      options.logger?.error(options.logLine, { provider: options.provider, status, code });
    }
    return {
      retry: false,
      value: {
        status: "rejected",
        error: upstreamError(
          "upstream_unauthorized",
          `${options.refusal}: ${said}`,
          options.provider,
          code,
        ),
      },
    };
  };
}
