/**
 * Fair delivery: why the engine turned a subscription off, and since when its attempts have
 * been failing. Pending deliveries keep the destination keys they were made with (a
 * subscription's id, or `url:` and an origin); new ones are keyed by organization and origin,
 * and a subscription's are moved to the new key when its URL changes.
 */
export const fairDeliverySchema: readonly string[] = [
  `ALTER TABLE webhook_subscriptions ADD COLUMN disabled_reason TEXT
     CHECK (disabled_reason IN ('failing'))`,
  `ALTER TABLE webhook_subscriptions ADD COLUMN failing_since TEXT COLLATE "C"`,
];
