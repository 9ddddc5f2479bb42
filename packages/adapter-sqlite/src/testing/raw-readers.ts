import type { RawReaders } from "@tidings/core/testing";
import { records, select } from "../columns.js";
import type { SqliteDatabase } from "../sqlite-database.js";

/**
 * The contract suite's oracle: plain SQL straight on the tables, bypassing the repositories,
 * the mutex and every status or organization filter. Only the row-to-record mapping is shared.
 */
export function sqliteRawReaders(db: SqliteDatabase): RawReaders {
  // Async, so a corrupt row rejects the read as it does in the storage.
  const one = async <T>(text: string, map: (row: unknown) => T, ...params: unknown[]) => {
    const row = db.prepare(text).get(...params);
    return row === undefined ? null : map(row);
  };
  const many = async <T>(text: string, map: (row: unknown) => T, ...params: unknown[]) =>
    db
      .prepare(text)
      .all(...params)
      .map(map);
  return {
    profile: (id) =>
      one(`SELECT ${select.profiles} FROM profiles WHERE id = ?`, records.profile, id),
    memberships: (profileId) =>
      many(
        `SELECT ${select.listMemberships} FROM list_memberships
         WHERE profile_id = ? ORDER BY seq`,
        records.membership,
        profileId,
      ),
    consentChanges: (profileId) =>
      many(
        `SELECT ${select.consentChanges} FROM consent_changes WHERE profile_id = ?
         ORDER BY changed_at, id`,
        records.consentChange,
        profileId,
      ),
    campaign: (id) =>
      one(`SELECT ${select.campaigns} FROM campaigns WHERE id = ?`, records.campaign, id),
    apiKey: (id) => one(`SELECT ${select.apiKeys} FROM api_keys WHERE id = ?`, records.apiKey, id),
    message: (id) =>
      one(`SELECT ${select.messages} FROM messages WHERE id = ?`, records.message, id),
    events: (messageId) =>
      many(
        `SELECT ${select.messageEvents} FROM message_events WHERE message_id = ? ORDER BY created_at, id`,
        records.messageEvent,
        messageId,
      ),
    webhook: (id) =>
      one(
        `SELECT ${select.webhookSubscriptions} FROM webhook_subscriptions WHERE id = ?`,
        records.webhook,
        id,
      ),
    delivery: (id) =>
      one(`SELECT ${select.deliveries} FROM deliveries WHERE id = ?`, records.delivery, id),
    deliveries: () =>
      many(`SELECT ${select.deliveries} FROM deliveries ORDER BY created_at, id`, records.delivery),
    attempts: (deliveryId) =>
      many(
        `SELECT ${select.deliveryAttempts} FROM delivery_attempts WHERE delivery_id = ?
         ORDER BY attempt, seq`,
        records.attempt,
        deliveryId,
      ),
    idempotency: (apiKeyId, endpoint, key) =>
      one(
        `SELECT ${select.idempotencyRecords} FROM idempotency_records
         WHERE api_key_id = ? AND endpoint = ? AND key = ?`,
        records.idempotency,
        apiKeyId,
        endpoint,
        key,
      ),
  };
}
