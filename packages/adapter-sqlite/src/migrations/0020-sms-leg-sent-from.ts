/**
 * The sender a message's SMS leg actually went out from, as the provider's answer or report
 * gave it, kept only when it is not the message's sender (a Twilio Messaging Service picks a
 * number of its pool). Inbound ownership looks a reply's `To` up by it; the index holds only
 * the messages that have one, so a send that no provider re-addressed maintains nothing.
 */
export const smsLegSentFrom = /* sql */ `
ALTER TABLE messages ADD COLUMN sms_sent_from TEXT;
CREATE INDEX messages_phone_sent_from ON messages (phone_number, sms_sent_from, created_at)
  WHERE sms_sent_from IS NOT NULL;
`;
