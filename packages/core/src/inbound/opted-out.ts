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
 * The provider codes that mean the recipient opted out or blocked the sender.
 * - Twilio 21610, "Attempt to send to unsubscribed recipient" (Twilio's error dictionary), at
 *   send or as a callback's `ErrorCode`.
 * - Telnyx 40300, "Blocked due to STOP message" (Telnyx's opt-in/out guide).
 * - Infobip: the status `REJECTED_DESTINATION_BLOCKLISTED` (id 14, blocklisted at the
 *   operator's request or on the account's Do-Not-Contact list), the errors
 *   `EC_CONTENT_BLOCKED` (603, blocked by the user's opt-out, MO STOP) and
 *   `EC_SC_BLOCKED_BY_END_USER` (573, the user had the operator block the short code), and on
 *   Viber `EC_BLOCKED_USER` (7003, the user blocked the sender). UNCONFIRMED: these names and
 *   meanings come from a copy of Infobip's "Response status and error codes" page, not from
 *   Infobip's own page or SDKs, which were not available to check them against.
 * - Vonage Messages 1050, "Number barred: the number is blacklisted and may not receive
 *   messages" (Vonage's Messages API error list). UNCONFIRMED: the code of a Messages API status
 *   webhook for a number that opted out (Vonage documents that one comes, `rejected`, but the
 *   code could not be read), and Vonage's code for a Viber user's block. The SMS API's receipt
 *   code 9 means an opt-out there, but Tidings uses the Messages API, so it is not listed.
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
  vonage: ["1050"],
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
