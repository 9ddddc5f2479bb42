import type { Channel, Clock } from "../ports.js";
import { annotateActiveSpan, inSpan } from "../support/tracing.js";
import type { ProviderLogger } from "./provider-logger.js";

/** Span attribute names of a provider request: names and outcomes only, never a number or text. */
export const PROVIDER_SPAN_ATTRIBUTES = {
  provider: "tidings.provider",
  channel: "tidings.channel",
  outcome: "tidings.provider.outcome",
  status: "http.response.status_code",
} as const;

/**
 * Runs one request to a provider inside a span `providerRequest` carrying the provider and
 * channel (a no-op until the host turns tracing on). The adapter notes the outcome with
 * `noteProviderOutcome` from inside `fn`.
 */
export const inProviderRequestSpan = <T>(
  provider: string,
  channel: Channel,
  fn: () => Promise<T>,
): Promise<T> =>
  inSpan(
    "providerRequest",
    { [PROVIDER_SPAN_ATTRIBUTES.provider]: provider, [PROVIDER_SPAN_ATTRIBUTES.channel]: channel },
    () => fn(),
  );

/** Notes on the current provider request's span how it went: an outcome word and the HTTP status. */
export function noteProviderOutcome(outcome: string, status: number | null): void {
  annotateActiveSpan(PROVIDER_SPAN_ATTRIBUTES.outcome, outcome);
  if (status !== null) annotateActiveSpan(PROVIDER_SPAN_ATTRIBUTES.status, status);
}

/** One request to a provider as the host's metrics and traces see it: no secret, no text. */
export interface ProviderRequestSeen<P extends string = string, C extends Channel = Channel> {
  provider: P;
  channel: C;
  /** `accepted`, `rejected`, `unauthorized`, `rate_limited`, `unavailable`. */
  outcome: string;
  status: number | null;
  durationMs: number;
}

/**
 * What an adapter calls once a request to `provider` has ended: notes its outcome on the
 * request's span and tells `onRequest` (the host's metrics), timed from `startedAt`. A request
 * that did not end `accepted` is logged once at warn, with its cause (the provider's words or
 * the connection's error; never a credential or the message's text).
 */
export function providerRequestWatch<P extends string, C extends Channel>(
  provider: P,
  clock: Clock,
  onRequest: ((seen: ProviderRequestSeen<P, C>) => void) | undefined,
  logger?: Pick<ProviderLogger, "warn"> | undefined,
): (
  channel: C,
  outcome: string,
  status: number | null,
  startedAt: number,
  cause?: string | null,
) => void {
  return (channel, outcome, status, startedAt, cause = null) => {
    const durationMs = clock.now() - startedAt;
    noteProviderOutcome(outcome, status);
    onRequest?.({ provider, channel, outcome, status, durationMs });
    if (outcome !== "accepted") {
      logger?.warn("provider request failed", {
        provider,
        channel,
        outcome,
        status,
        cause,
        durationMs,
      });
    }
  };
}
