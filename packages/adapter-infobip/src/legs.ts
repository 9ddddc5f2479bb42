import type { Channel } from "@tidings/core";

/**
 * The `messageId` Tidings gives Infobip for one leg: the message id for the Viber leg, and the
 * message id with `.sms` for an SMS leg, so a report's channel is known from its id alone and
 * the SMS of a fallback never collides with the Viber message Infobip already holds.
 */
export const legIdOf = (messageId: string, channel: Channel): string =>
  channel === "sms" ? `${messageId}.sms` : messageId;

/** The message and channel of a leg id. */
export function parseLegId(legId: string): { messageId: string; channel: Channel } {
  return legId.endsWith(".sms")
    ? { messageId: legId.slice(0, -".sms".length), channel: "sms" }
    : { messageId: legId, channel: "viber" };
}
