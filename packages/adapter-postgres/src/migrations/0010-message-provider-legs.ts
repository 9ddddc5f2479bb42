/**
 * Each message's provider and the provider's id of it, per leg (the Viber leg, and the SMS leg
 * a fallback adds), so a real upstream's reports can be matched to the leg they are about and
 * operators can look a message up at the provider. No index: reports find a message by its own
 * id, which every provider echoes back. Nullable columns without a default: adding them
 * rewrites nothing.
 */
export const messageProviderLegs: readonly string[] = [
  `ALTER TABLE messages
     ADD COLUMN viber_provider TEXT,
     ADD COLUMN viber_provider_message_id TEXT,
     ADD COLUMN sms_provider TEXT,
     ADD COLUMN sms_provider_message_id TEXT`,
];
