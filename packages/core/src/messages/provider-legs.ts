import type {
  Channel,
  ChannelProvider,
  DispatchResult,
  LegNotes,
  MessageRecord,
  ProviderLeg,
} from "../ports.js";

/** The name of the provider that carries `channel`: the router's choice, else its own name. */
export const providerOf = (provider: ChannelProvider, channel: Channel): string =>
  provider.providerFor?.(channel) ?? provider.name;

/** A message's leg on `channel`, or `null` when no provider carries it yet. */
export function legOf(message: MessageRecord, channel: Channel): ProviderLeg | null {
  const [provider, providerMessageId, notes] =
    channel === "viber"
      ? [message.viberProvider, message.viberProviderMessageId, message.viberLegNotes]
      : [message.smsProvider, message.smsProviderMessageId, message.smsLegNotes];
  return provider === null ? null : { provider, providerMessageId, notes };
}

/** What a provider's answer notes about the leg it made, or `null` when nothing. */
export function legNotesOf(result: DispatchResult): LegNotes | null {
  const triedBefore = [...(result.triedBefore ?? [])];
  const clampedTtlSeconds = result.clampedTtlSeconds ?? null;
  return triedBefore.length === 0 && clampedTtlSeconds === null
    ? null
    : { triedBefore, clampedTtlSeconds };
}

/** Whether two legs' notes say the same. */
export const sameNotes = (
  a: LegNotes | null | undefined,
  b: LegNotes | null | undefined,
): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The message with its leg on `channel` replaced. */
export const withLeg = (
  message: MessageRecord,
  channel: Channel,
  leg: ProviderLeg,
): MessageRecord =>
  channel === "viber"
    ? {
        ...message,
        viberProvider: leg.provider,
        viberProviderMessageId: leg.providerMessageId,
        viberLegNotes: leg.notes ?? null,
      }
    : {
        ...message,
        smsProvider: leg.provider,
        smsProviderMessageId: leg.providerMessageId,
        smsLegNotes: leg.notes ?? null,
      };

/** The legs of a new message: only its first channel's provider is known. */
export const firstLeg = (
  provider: ChannelProvider,
  channel: Channel,
): Pick<
  MessageRecord,
  | "viberProvider"
  | "viberProviderMessageId"
  | "viberLegNotes"
  | "smsProvider"
  | "smsProviderMessageId"
  | "smsLegNotes"
> => ({
  viberProvider: channel === "viber" ? providerOf(provider, "viber") : null,
  viberProviderMessageId: null,
  viberLegNotes: null,
  smsProvider: channel === "sms" ? providerOf(provider, "sms") : null,
  smsProviderMessageId: null,
  smsLegNotes: null,
});

/** A new message has no fallback job, and no provider has said where it went out from. */
export const NO_FALLBACK = { fallbackDueAt: null, smsSentFrom: null } as const;

/** Whether the message already says its SMS went out from `sentFrom`: nothing to keep then. */
export const sameSender = (message: MessageRecord, sentFrom: string): boolean =>
  message.smsSentFrom === sentFrom || (message.smsSentFrom === null && message.sender === sentFrom);
