import type { Deps } from "../deps.js";
import {
  meansOptedOut,
  optedOutError,
  suppressedChannels,
  suppressFromProvider,
} from "../inbound/opted-out.js";
import type {
  CampaignRecord,
  ChannelProvider,
  DispatchResult,
  MessageError,
  MessageRecord,
  OutboundMessage,
  ProviderLeg,
} from "../ports.js";
import { isoAt } from "../support/clock.js";
import { advanceMessage } from "./lifecycle.js";
import { legNotesOf, legOf, providerOf, sameNotes, sameSender, withLeg } from "./provider-legs.js";

const UPSTREAM_UNAVAILABLE: MessageError = {
  code: "upstream_unavailable",
  message: "The upstream could not be reached to hand the message over.",
};

const outbound = (message: MessageRecord, ttlSeconds: number): OutboundMessage => ({
  messageId: message.id,
  channel: message.channel,
  sender: message.sender,
  phoneNumber: message.phoneNumber,
  body: message.body,
  category: message.category,
  ttlSeconds,
});

/** An error as the provider `name` gave it, naming the provider (and its code, if any). */
const namedError = (error: MessageError, provider: string): MessageError => ({
  ...error,
  provider: error.provider ?? provider,
  provider_code: error.provider_code ?? null,
});

/**
 * The provider's answer, its error naming the provider, and the leg it makes; a transport
 * failure (a rejection) is a refusal like any other.
 */
async function dispatchOnce(
  provider: ChannelProvider,
  message: MessageRecord,
  ttlSeconds: number,
): Promise<{
  error: MessageError | null;
  result: DispatchResult;
  leg: ProviderLeg;
  sentFrom: string | null;
}> {
  let result: DispatchResult;
  try {
    result = await provider.dispatch(outbound(message, ttlSeconds));
  } catch {
    result = { status: "rejected", error: UPSTREAM_UNAVAILABLE };
  }
  const name = result.provider ?? providerOf(provider, message.channel);
  const notes = legNotesOf(result);
  if (result.status === "accepted") {
    return {
      error: null,
      result,
      leg: { provider: name, providerMessageId: result.providerMessageId ?? null, notes },
      sentFrom:
        typeof result.sentFrom === "string" && result.sentFrom !== "" ? result.sentFrom : null,
    };
  }
  return {
    error: namedError(result.error, name),
    result,
    leg: { provider: name, providerMessageId: null, notes },
    sentFrom: null,
  };
}

/**
 * Keeps the leg a dispatch made, unless the message already holds it as it is, and the sender
 * an SMS leg went out from when the provider's answer names one other than the message's.
 */
async function keepLeg(
  deps: Pick<Deps, "storage">,
  message: MessageRecord,
  { leg, sentFrom }: { leg: ProviderLeg; sentFrom: string | null },
): Promise<MessageRecord> {
  let kept = message;
  const stored = legOf(message, message.channel);
  if (
    stored?.provider !== leg.provider ||
    stored.providerMessageId !== leg.providerMessageId ||
    !sameNotes(stored.notes, leg.notes)
  ) {
    await deps.storage.messages.recordLeg(message.id, message.channel, leg);
    kept = withLeg(message, message.channel, leg);
  }
  if (message.channel === "sms" && sentFrom !== null && !sameSender(message, sentFrom)) {
    await deps.storage.messages.recordSentFrom(message.id, sentFrom);
    kept = { ...kept, smsSentFrom: sentFrom };
  }
  return kept;
}

/**
 * Moves a Viber message over to SMS (status stays `sent`). No event is recorded for the
 * switch: the message was accepted once, and every later event carries channel `sms`, so
 * each topic still appears at most once per message. `null` when the message moved on.
 */
async function switchToSms(
  deps: Pick<Deps, "storage" | "clock">,
  message: MessageRecord,
): Promise<MessageRecord | null> {
  const changes = {
    status: message.status,
    channel: "sms" as const,
    error: message.error,
    updatedAt: isoAt(deps.clock.now()),
  };
  const switched = await deps.storage.messages.transition(message.id, "sent", changes);
  return switched ? { ...message, ...changes } : null;
}

/** Why a message that was not on Viber failed instead of going out by SMS. */
function noFallbackError(
  campaign: Pick<CampaignRecord, "smsFallback">,
  error: MessageError,
): MessageError {
  if (!campaign.smsFallback) return error;
  return {
    ...error,
    message: `${error.message} It was not sent by SMS instead, because promotional consent was not found for the profile on the sms channel.`,
  };
}

/** The message as its SMS leg goes out: from the campaign's `sms_sender`, when it has one. */
const bySmsSender = (
  message: MessageRecord,
  campaign: Pick<CampaignRecord, "smsSender"> | null,
): MessageRecord => ({ ...message, sender: campaign?.smsSender ?? message.sender });

/** Viber's shortest TTL: a Viber leg is never given less. */
const VIBER_MIN_TTL_SECONDS = 30;

/**
 * The TTL of a message's first leg: a Viber message that may fall back to SMS after the fact
 * gets half the campaign's (at least Viber's 30 s), so its SMS still has the rest.
 */
export const firstLegTtl = (message: MessageRecord, ttlSeconds: number): number =>
  message.channel === "viber" && message.smsFallbackAllowed
    ? Math.min(ttlSeconds, Math.max(VIBER_MIN_TTL_SECONDS, Math.floor(ttlSeconds / 2)))
    : ttlSeconds;

/**
 * Hands the SMS leg of a fallback after the fact to the upstream, with what is left of the
 * message's TTL, and records its leg, or its failure with `message.failed`. Returns the message
 * as it stands afterwards.
 */
export async function sendFallbackSms(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "provider" | "secretBox">,
  message: MessageRecord,
  campaign: Pick<CampaignRecord, "smsSender"> | null,
): Promise<MessageRecord> {
  if (await smsSuppressed(deps, message)) {
    const outcome = await advanceMessage(deps, message.id, "failed", optedOutError("sms"));
    return outcome.kind === "not_found" ? message : outcome.message;
  }
  const left = Math.ceil((Date.parse(message.expiresAt) - deps.clock.now()) / 1000);
  const answer = await dispatchOnce(
    deps.provider,
    bySmsSender(message, campaign),
    Math.max(1, left),
  );
  const current = await keepLeg(deps, message, answer);
  if (answer.error === null) return current;
  const error = await optedOutOrAsIs(deps, current, answer.error);
  const outcome = await advanceMessage(deps, current.id, "failed", error);
  return outcome.kind === "not_found" ? current : outcome.message;
}

/** Whether the organization suppresses the message's number on SMS (a fallback's check). */
const smsSuppressed = async (
  deps: Pick<Deps, "storage" | "secretBox">,
  message: MessageRecord,
): Promise<boolean> =>
  (await suppressedChannels(deps.storage, deps, message.organizationId, message.phoneNumber)).has(
    "sms",
  );

/**
 * A provider's refusal that means the recipient opted out suppresses the number on the leg's
 * channel (source `provider`) and fails the message with `recipient_opted_out`; any other
 * error is kept as it is.
 */
async function optedOutOrAsIs(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox">,
  message: MessageRecord,
  error: MessageError,
): Promise<MessageError> {
  if (!meansOptedOut(error)) return error;
  await suppressFromProvider(deps, message, message.channel, error);
  return optedOutError(message.channel, error.provider ?? undefined, error.provider_code);
}

/**
 * Hands a stored message to the upstream and records what came of it. `accepted` leaves it
 * `sent`. `not_on_channel` on Viber goes out again by SMS when the message may fall back.
 * Anything else (a refusal, a transport failure, no fallback) makes it `failed` with a
 * `message.failed` event. Returns the message as it stands afterwards.
 */
export async function handOff(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "provider" | "secretBox">,
  message: MessageRecord,
  campaign: Pick<CampaignRecord, "smsFallback" | "ttlSeconds" | "smsSender">,
): Promise<MessageRecord> {
  let answer = await dispatchOnce(
    deps.provider,
    message,
    firstLegTtl(message, campaign.ttlSeconds),
  );
  let current = await keepLeg(deps, message, answer);
  let error = answer.error;
  if (answer.result.status === "not_on_channel" && current.channel === "viber") {
    if (current.smsFallbackAllowed && (await smsSuppressed(deps, current))) {
      // Never into a number that opted out of SMS.
      error = optedOutError("sms");
    } else if (current.smsFallbackAllowed) {
      const switched = await switchToSms(deps, current);
      // A report or the sweep got there first; it already recorded what happened.
      if (switched === null) return (await deps.storage.messages.getById(current.id)) ?? current;
      answer = await dispatchOnce(
        deps.provider,
        bySmsSender(switched, campaign),
        campaign.ttlSeconds,
      );
      current = await keepLeg(deps, switched, answer);
      error = answer.error;
    } else if (error !== null) {
      error = noFallbackError(campaign, error);
    }
  }
  if (error === null) return current;
  error = await optedOutOrAsIs(deps, current, error);
  const outcome = await advanceMessage(deps, current.id, "failed", error);
  return outcome.kind === "not_found" ? current : outcome.message;
}
