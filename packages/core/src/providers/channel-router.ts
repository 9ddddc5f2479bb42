import type { Channel, ChannelProvider } from "../ports.js";

/** Which provider carries each channel (the same one may carry both). */
export type ProvidersByChannel = Readonly<Record<Channel, ChannelProvider>>;

/**
 * One `ChannelProvider` that hands each message to its channel's provider and names that
 * provider on the answer, so a message's leg and error say who carried it. Its `name` is the
 * providers' names (`infobip`, or `infobip+twilio` when they differ).
 */
export function channelRouter(providers: ProvidersByChannel): ChannelProvider {
  const distinct = [...new Set([providers.viber, providers.sms])];
  const nameOf = (channel: Channel): string => {
    const provider = providers[channel];
    return provider.providerFor?.(channel) ?? provider.name;
  };
  const names = [...new Set([nameOf("viber"), nameOf("sms")])];
  return {
    name: names.join("+"),
    providerFor: nameOf,
    textLimit: (channel) => providers[channel].textLimit?.(channel) ?? null,
    async dispatch(message, options) {
      const result = await providers[message.channel].dispatch(message, options);
      return { ...result, provider: result.provider ?? nameOf(message.channel) };
    },
    async close() {
      await Promise.all(distinct.map((provider) => provider.close?.()));
    },
  };
}
