import type { Channel, ChannelProvider, MessageRecord, ProviderLeg } from "../ports.js";

/** The name of the provider that carries `channel`: the router's choice, else its own name. */
export const providerOf = (provider: ChannelProvider, channel: Channel): string =>
  provider.providerFor?.(channel) ?? provider.name;

/** A message's leg on `channel`, or `null` when no provider carries it yet. */
export function legOf(message: MessageRecord, channel: Channel): ProviderLeg | null {
  const [provider, providerMessageId] =
    channel === "viber"
      ? [message.viberProvider, message.viberProviderMessageId]
      : [message.smsProvider, message.smsProviderMessageId];
  return provider === null ? null : { provider, providerMessageId };
}

/** The message with its leg on `channel` replaced. */
export const withLeg = (
  message: MessageRecord,
  channel: Channel,
  leg: ProviderLeg,
): MessageRecord =>
  channel === "viber"
    ? { ...message, viberProvider: leg.provider, viberProviderMessageId: leg.providerMessageId }
    : { ...message, smsProvider: leg.provider, smsProviderMessageId: leg.providerMessageId };

/** The legs of a new message: only its first channel's provider is known. */
export const firstLeg = (
  provider: ChannelProvider,
  channel: Channel,
): Pick<
  MessageRecord,
  "viberProvider" | "viberProviderMessageId" | "smsProvider" | "smsProviderMessageId"
> => ({
  viberProvider: channel === "viber" ? providerOf(provider, "viber") : null,
  viberProviderMessageId: null,
  smsProvider: channel === "sms" ? providerOf(provider, "sms") : null,
  smsProviderMessageId: null,
});

/** A new message has no fallback job, and no provider has said where it went out from. */
export const NO_FALLBACK = { fallbackDueAt: null, smsSentFrom: null } as const;

/** Whether the message already says its SMS went out from `sentFrom`: nothing to keep then. */
export const sameSender = (message: MessageRecord, sentFrom: string): boolean =>
  message.smsSentFrom === sentFrom || (message.smsSentFrom === null && message.sender === sentFrom);
