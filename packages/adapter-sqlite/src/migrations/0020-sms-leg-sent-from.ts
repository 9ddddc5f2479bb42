/**
 * The sender a message's SMS leg actually went out from, as the provider's answer or report
 * gave it, kept only when it is not the message's sender (a Twilio Messaging Service picks a
 * number of its pool). Inbound ownership looks a reply's `To` up by it. No index of its own:
 * the lookup reads the person's messages by the `phone_number` prefix of
 * `messages_phone_sender` and filters them by sender (EXPLAIN on both databases; an index on
 * this column went unused).
 */
export const smsLegSentFrom = /* sql */ `
ALTER TABLE messages ADD COLUMN sms_sent_from TEXT;
`;
