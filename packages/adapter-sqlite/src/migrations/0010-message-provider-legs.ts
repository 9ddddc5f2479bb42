/**
 * Each message's provider and the provider's id of it, per leg (the Viber leg, and the SMS leg
 * a fallback adds), so a real upstream's reports can be matched to the leg they are about and
 * operators can look a message up at the provider. No index: reports find a message by its own
 * id, which every provider echoes back. `fallback_due_at` is the SMS fallback job a Viber
 * failure report commits with itself; its index holds only the messages that have one. A
 * campaign's `sms_sender` is the sender of those SMS.
 */
export const messageProviderLegs = /* sql */ `
ALTER TABLE messages ADD COLUMN viber_provider TEXT;
ALTER TABLE messages ADD COLUMN viber_provider_message_id TEXT;
ALTER TABLE messages ADD COLUMN sms_provider TEXT;
ALTER TABLE messages ADD COLUMN sms_provider_message_id TEXT;
ALTER TABLE messages ADD COLUMN fallback_due_at TEXT;
ALTER TABLE campaigns ADD COLUMN sms_sender TEXT;
CREATE INDEX messages_fallback_due ON messages (fallback_due_at, id)
  WHERE fallback_due_at IS NOT NULL;
`;
