/**
 * Each message's provider and the provider's id of it, per leg (the Viber leg, and the SMS leg
 * a fallback adds), so a real upstream's reports can be matched to the leg they are about and
 * operators can look a message up at the provider. No index: reports find a message by its own
 * id, which every provider echoes back. Nullable columns without a default: adding them
 * rewrites nothing. `fallback_due_at` is the SMS fallback job a Viber failure report commits
 * with itself; its index holds only the messages that have one. A campaign's `sms_sender` is
 * the sender of those SMS.
 */
export const messageProviderLegs: readonly string[] = [
  `ALTER TABLE messages
     ADD COLUMN viber_provider TEXT,
     ADD COLUMN viber_provider_message_id TEXT,
     ADD COLUMN sms_provider TEXT,
     ADD COLUMN sms_provider_message_id TEXT,
     ADD COLUMN fallback_due_at TEXT COLLATE "C"`,
  "ALTER TABLE campaigns ADD COLUMN sms_sender TEXT",
  `CREATE INDEX messages_fallback_due ON messages (fallback_due_at, id)
     WHERE fallback_due_at IS NOT NULL`,
];
