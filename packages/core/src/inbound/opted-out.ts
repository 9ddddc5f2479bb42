import type { Deps } from "../deps.js";
import type { ForbiddenError } from "../errors.js";
import type { Channel, MessageError, MessageRecord, Repositories } from "../ports.js";
import { optOut } from "./consent-effects.js";
import { existingSuppressionKey, phoneHash, suppressionKey } from "./suppression-keys.js";

/** The 403 of a send to a suppressed number, in every category. */
export const recipientOptedOut = (channel: Channel): ForbiddenError => ({
  type: "forbidden",
  code: "recipient_opted_out",
  message: `The recipient opted out of ${channel}; they can reply START.`,
});

/** The error of a message that failed because its recipient opted out. */
export const optedOutError = (channel: Channel, provider?: string, code?: string | null) =>
  ({
    code: "recipient_opted_out",
    message: `The recipient opted out of ${channel}; they can reply START.`,
    ...(provider === undefined ? {} : { provider, provider_code: code ?? null }),
  }) satisfies MessageError;

/**
 * The provider codes that mean the recipient opted out or blocked the sender, each from the
 * provider's own error list: Twilio 21610 ("Attempt to send to unsubscribed recipient");
 * Telnyx 40300 ("Blocked due to STOP message"); Infobip's `REJECTED_DESTINATION_BLOCKLISTED`,
 * `EC_CONTENT_BLOCKED` (opt-out by MO STOP), `EC_SC_BLOCKED_BY_END_USER` and, on Viber,
 * `EC_BLOCKED_USER`; Vonage Messages 1050 ("Number barred") and the SMS API's receipt code 9
 * for an opted-out number.
 */
const OPT_OUT_CODES: Readonly<Record<string, readonly string[]>> = {
  twilio: ["21610"],
  telnyx: ["40300"],
  infobip: [
    "REJECTED_DESTINATION_BLOCKLISTED",
    "EC_CONTENT_BLOCKED",
    "EC_SC_BLOCKED_BY_END_USER",
    "EC_BLOCKED_USER",
  ],
  vonage: ["1050", "9"],
};

/** Whether a provider's error means the recipient opted out or blocked the sender. */
export function meansOptedOut(error: MessageError | null | undefined): boolean {
  if (!error?.provider || !error.provider_code) return false;
  return OPT_OUT_CODES[error.provider]?.includes(error.provider_code) ?? false;
}

/**
 * The channels on which the organization suppresses the number: one indexed read in the
 * caller's transaction (none when the organization never suppressed anything).
 */
export async function suppressedChannels(
  tx: Repositories,
  deps: Pick<Deps, "secretBox">,
  organizationId: string,
  phoneNumber: string,
): Promise<Set<Channel>> {
  const key = await existingSuppressionKey(tx, deps.secretBox, organizationId);
  if (key === null) return new Set();
  const found = await tx.suppressions.forNumber(organizationId, phoneHash(key, phoneNumber));
  return new Set(found.map((s) => s.channel));
}

/**
 * A provider refused or reported a message because its recipient opted out: suppress the
 * number on that channel with source `provider` and turn its consent off, like an inbound STOP.
 */
export async function suppressFromProvider(
  deps: Pick<Deps, "storage" | "secretBox" | "ids" | "clock" | "telemetry">,
  message: Pick<MessageRecord, "organizationId" | "phoneNumber">,
  channel: Channel,
  error: MessageError,
): Promise<void> {
  const key = await suppressionKey(deps, message.organizationId);
  const effect = await deps.storage.transaction((tx) =>
    optOut(tx, deps, key, message.organizationId, channel, message.phoneNumber, {
      source: "provider",
      keyword: null,
      provider: error.provider ?? null,
      note: error.provider_code ? `${error.provider} ${error.provider_code}` : null,
      apiKeyId: null,
    }),
  );
  if (effect.suppressionChanged) deps.telemetry?.suppressionAdded?.("provider");
}
