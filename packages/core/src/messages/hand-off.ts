import type { Deps } from "../deps.js";
import type {
  CampaignRecord,
  ChannelProvider,
  DispatchResult,
  MessageError,
  MessageRecord,
  OutboundMessage,
} from "../ports.js";
import { isoAt } from "../support/clock.js";
import { advanceMessage } from "./lifecycle.js";

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

/** The provider's answer; a transport failure (a rejection) is a refusal like any other. */
async function dispatchOnce(
  provider: ChannelProvider,
  message: MessageRecord,
  ttlSeconds: number,
): Promise<DispatchResult> {
  try {
    return await provider.dispatch(outbound(message, ttlSeconds));
  } catch {
    return { status: "rejected", error: UPSTREAM_UNAVAILABLE };
  }
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
    code: error.code,
    message: `${error.message} It was not sent by SMS instead, because promotional consent was not found for the profile on the sms channel.`,
  };
}

/**
 * Hands a stored message to the upstream and records what came of it. `accepted` leaves it
 * `sent`. `not_on_channel` on Viber goes out again by SMS when the message may fall back.
 * Anything else (a refusal, a transport failure, no fallback) makes it `failed` with a
 * `message.failed` event. Returns the message as it stands afterwards.
 */
export async function handOff(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "provider">,
  message: MessageRecord,
  campaign: Pick<CampaignRecord, "smsFallback" | "ttlSeconds">,
): Promise<MessageRecord> {
  let current = message;
  let result = await dispatchOnce(deps.provider, current, campaign.ttlSeconds);
  let error: MessageError | null = result.status === "accepted" ? null : result.error;
  if (result.status === "not_on_channel" && current.channel === "viber") {
    if (current.smsFallbackAllowed) {
      const switched = await switchToSms(deps, current);
      // A report or the sweep got there first; it already recorded what happened.
      if (switched === null) return (await deps.storage.messages.getById(current.id)) ?? current;
      current = switched;
      result = await dispatchOnce(deps.provider, current, campaign.ttlSeconds);
      error = result.status === "accepted" ? null : result.error;
    } else if (error !== null) {
      error = noFallbackError(campaign, error);
    }
  }
  if (error === null) return current;
  const outcome = await advanceMessage(deps, current.id, "failed", error);
  return outcome.kind === "not_found" ? current : outcome.message;
}
