import { infobipPlugin } from "@tidings/adapter-infobip";
import { telnyxPlugin } from "@tidings/adapter-telnyx";
import { twilioPlugin } from "@tidings/adapter-twilio";
import { vonagePlugin } from "@tidings/adapter-vonage";
import type { Channel, ProviderLimits, ProviderPlugin } from "@tidings/core";

/**
 * Every real provider, by its `TIDINGS_PROVIDER` value: the one place a provider is added. The
 * settings checks, `serve`'s senders and routes, and `providers check` all loop over it.
 */
export const PROVIDER_PLUGINS = {
  twilio: twilioPlugin,
  infobip: infobipPlugin,
  vonage: vonagePlugin,
  telnyx: telnyxPlugin,
} as const;

export type RealProviderName = keyof typeof PROVIDER_PLUGINS;

/** The providers a server can route a channel to: the bundled sandbox, then the plugins. */
export type ProviderName = "sandbox" | RealProviderName;
export const PROVIDER_NAMES: readonly ProviderName[] = [
  "sandbox",
  ...(Object.keys(PROVIDER_PLUGINS) as RealProviderName[]),
];

/** A plugin's settings type. */
export type SettingsOf<P> = P extends ProviderPlugin<infer S, string> ? S : never;

/** The sandbox takes any text and any TTL. */
const SANDBOX_LIMITS: ProviderLimits = { text: {}, ttlSeconds: {} };

/** Each provider's limits, as data: the longest text and the TTL range, per channel. */
export const PROVIDER_LIMITS: Readonly<Record<ProviderName, ProviderLimits>> = {
  sandbox: SANDBOX_LIMITS,
  ...(Object.fromEntries(
    Object.entries(PROVIDER_PLUGINS).map(([name, plugin]) => [name, plugin.limits]),
  ) as Record<RealProviderName, ProviderLimits>),
};

/** The plugin of a real provider (`undefined` for the sandbox). */
export const pluginOf = (name: ProviderName): ProviderPlugin | undefined =>
  name === "sandbox" ? undefined : PROVIDER_PLUGINS[name];

/** How a provider is named in sentences. */
export const titleOf = (name: ProviderName): string => pluginOf(name)?.title ?? "The sandbox";

/** The channels a provider carries. */
export const channelsOf = (name: ProviderName): readonly Channel[] =>
  pluginOf(name)?.channels ?? ["viber", "sms"];

/**
 * The longest text every one of `providers` takes on `channel` (the smallest of their limits),
 * with the provider that sets it; `null` when none of them limits it.
 */
export function textLimitOf(
  providers: readonly ProviderName[],
  channel: Channel,
): { limit: number; provider: ProviderName } | null {
  let smallest: { limit: number; provider: ProviderName } | null = null;
  for (const provider of providers) {
    const limit = PROVIDER_LIMITS[provider].text[channel];
    if (limit !== undefined && (smallest === null || limit < smallest.limit)) {
      smallest = { limit, provider };
    }
  }
  return smallest;
}

/** The TTL range `provider` takes on `channel`, in seconds; `null` when it takes any. */
export const ttlRangeOf = (
  provider: ProviderName,
  channel: Channel,
): { min: number; max: number } | null => PROVIDER_LIMITS[provider].ttlSeconds[channel] ?? null;
