import type { Deps } from "../deps.js";
import type { RateLimitedError } from "../errors.js";
import type { RateLimitDecision } from "../ports.js";

/** The counter key of an API key's sends. */
export const sendRateLimitKey = (apiKeyId: string): string => `send:${apiKeyId}`;

/**
 * Counts one send for an API key in the sliding window (docs/decisions.md "Rate limit": per key,
 * 100 per 60 s by default) and says whether it may go ahead. A refused hit is not counted.
 */
export function checkSendRateLimit(
  deps: Pick<Deps, "storage" | "clock" | "config">,
  apiKeyId: string,
): Promise<RateLimitDecision> {
  return deps.storage.rateLimits.hit(
    sendRateLimitKey(apiKeyId),
    deps.clock.now(),
    deps.config.sendRateWindowMs,
    deps.config.sendRateLimit,
  );
}

/** The counter key of an API key's test webhooks. */
export const webhookTestRateLimitKey = (apiKeyId: string): string => `webhook-test:${apiKeyId}`;

/**
 * Counts one test webhook for an API key (10 per 60 s by default): each is an outbound request
 * to a URL the client chose, so without a limit the endpoint would amplify traffic toward it.
 */
export function checkWebhookTestRateLimit(
  deps: Pick<Deps, "storage" | "clock" | "config">,
  apiKeyId: string,
): Promise<RateLimitDecision> {
  return deps.storage.rateLimits.hit(
    webhookTestRateLimitKey(apiKeyId),
    deps.clock.now(),
    deps.config.webhookTestRateWindowMs,
    deps.config.webhookTestRateLimit,
  );
}

/** Whole seconds until there is room again, never less than 1 (for `Retry-After`). */
export const retryAfterSeconds = (decision: RateLimitDecision): number =>
  Math.max(1, Math.ceil(decision.resetMs / 1000));

/**
 * The `RateLimit-*` headers of every send answer (IETF RateLimit header fields draft): the
 * limit, the hits left in the window after this one, and the whole seconds, rounded up, until
 * the oldest counted hit leaves the sliding window and `RateLimit-Remaining` goes up (0 only
 * when no hit is counted). A refused decision also gets `Retry-After`, the same wait.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(Math.max(0, Math.ceil(decision.resetMs / 1000))),
  };
  if (!decision.allowed) headers["Retry-After"] = String(retryAfterSeconds(decision));
  return headers;
}

/** The 429 of a refused decision, with the seconds to wait; `what` names what was counted. */
export function rateLimitedError(
  decision: RateLimitDecision,
  what = "send requests",
): RateLimitedError {
  const wait = retryAfterSeconds(decision);
  return {
    type: "rate_limited",
    code: "rate_limited",
    message: `Too many ${what} for this API key: at most ${decision.limit} per window. Retry after ${wait} second${wait === 1 ? "" : "s"}.`,
    retryAfterSeconds: wait,
  };
}
