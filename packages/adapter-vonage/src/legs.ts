import type { Channel } from "@tidings/core";

/**
 * The `client_ref` of one leg: the message id for the Viber leg, the message id with `.sms` for
 * an SMS leg, so a status webhook's channel is known from it alone.
 */
export const clientRefOf = (messageId: string, channel: Channel): string =>
  channel === "sms" ? `${messageId}.sms` : messageId;

/** The message and channel of a `client_ref`. */
export function parseClientRef(clientRef: string): { messageId: string; channel: Channel } {
  return clientRef.endsWith(".sms")
    ? { messageId: clientRef.slice(0, -".sms".length), channel: "sms" }
    : { messageId: clientRef, channel: "viber" };
}
