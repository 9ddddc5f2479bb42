import type { Channel, DispatchResult } from "../ports.js";
import { upstreamError } from "./upstream-errors.js";

/**
 * What a provider takes, per channel it carries: the longest text, in characters, and the range
 * of a message's time to live, in seconds. Longer texts are refused by the provider, so they are
 * refused before they leave; a TTL outside the range is clamped to it.
 */
export interface ProviderLimits {
  text: Partial<Record<Channel, number>>;
  ttlSeconds: Partial<Record<Channel, { min: number; max: number }>>;
}

/** A text's length as the providers count it: characters (code points), not UTF-16 units. */
export const textLength = (text: string): number => [...text].length;

/** `ttlSeconds` within the provider's range for `channel` (whole seconds). */
export function clampTtl(limits: ProviderLimits, channel: Channel, ttlSeconds: number): number {
  const range = limits.ttlSeconds[channel];
  const whole = Math.trunc(ttlSeconds);
  return range === undefined ? whole : Math.min(range.max, Math.max(range.min, whole));
}

/**
 * The refusal of a text longer than the provider takes on `channel` (`title`: how the provider
 * is named in sentences), or `null` when it fits; nothing is sent then.
 */
export function textOverLimit(
  provider: string,
  title: string,
  limits: ProviderLimits,
  message: { channel: Channel; body: string },
): DispatchResult | null {
  const limit = limits.text[message.channel];
  const length = textLength(message.body);
  if (limit === undefined || length <= limit) return null;
  return {
    status: "rejected",
    error: upstreamError(
      "upstream_rejected",
      `${title} takes at most ${limit} characters of ${message.channel === "sms" ? "SMS" : "Viber"} text; this one has ${length}, so it was not sent.`,
      provider,
      "text_too_long",
    ),
  };
}
