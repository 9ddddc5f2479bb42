import type { RawReaders } from "@tidings/core/testing";
import { apiKeyColumns, toApiKey } from "./repositories/api-keys.js";
import { campaignColumns, toCampaign } from "./repositories/campaigns.js";
import { consentColumns, toConsentChange } from "./repositories/consent.js";
import { toMembership } from "./repositories/contact-lists.js";
import {
  attemptColumns,
  deliveryColumns,
  toAttempt,
  toDelivery,
} from "./repositories/deliveries.js";
import { idempotencyColumns, toIdempotency } from "./repositories/idempotency.js";
import {
  eventColumns,
  messageColumns,
  toMessage,
  toMessageEvent,
} from "./repositories/messages.js";
import { profileColumns, toProfile } from "./repositories/profiles.js";
import { toWebhook, webhookColumns } from "./repositories/webhooks.js";
import type { SqliteDatabase } from "./sqlite-database.js";

/**
 * The contract suite's oracle: plain SQL straight on the tables, bypassing the repositories,
 * the mutex and every status or organization filter. Only the row-to-record mapping is shared.
 */
export function sqliteRawReaders(db: SqliteDatabase): RawReaders {
  const one = <Row, T>(text: string, map: (row: Row) => T, ...params: unknown[]) => {
    const row = db.prepare(text).get(...params);
    return Promise.resolve(row === undefined ? null : map(row as Row));
  };
  const many = <Row, T>(text: string, map: (row: Row) => T, ...params: unknown[]) =>
    Promise.resolve((db.prepare(text).all(...params) as Row[]).map(map));
  return {
    profile: (id) => one(`SELECT ${profileColumns} FROM profiles WHERE id = ?`, toProfile, id),
    memberships: (profileId) =>
      many(
        `SELECT list_id, profile_id, organization_id, added_at FROM list_memberships
         WHERE profile_id = ? ORDER BY seq`,
        toMembership,
        profileId,
      ),
    consentChanges: (profileId) =>
      many(
        `SELECT ${consentColumns} FROM consent_changes WHERE profile_id = ?
         ORDER BY changed_at, id`,
        toConsentChange,
        profileId,
      ),
    campaign: (id) => one(`SELECT ${campaignColumns} FROM campaigns WHERE id = ?`, toCampaign, id),
    apiKey: (id) => one(`SELECT ${apiKeyColumns} FROM api_keys WHERE id = ?`, toApiKey, id),
    message: (id) => one(`SELECT ${messageColumns} FROM messages WHERE id = ?`, toMessage, id),
    events: (messageId) =>
      many(
        `SELECT ${eventColumns} FROM message_events WHERE message_id = ? ORDER BY created_at, id`,
        toMessageEvent,
        messageId,
      ),
    webhook: (id) =>
      one(`SELECT ${webhookColumns} FROM webhook_subscriptions WHERE id = ?`, toWebhook, id),
    delivery: (id) => one(`SELECT ${deliveryColumns} FROM deliveries WHERE id = ?`, toDelivery, id),
    deliveries: () =>
      many(`SELECT ${deliveryColumns} FROM deliveries ORDER BY created_at, id`, toDelivery),
    attempts: (deliveryId) =>
      many(
        `SELECT ${attemptColumns} FROM delivery_attempts WHERE delivery_id = ?
         ORDER BY attempt, seq`,
        toAttempt,
        deliveryId,
      ),
    idempotency: (apiKeyId, endpoint, key) =>
      one(
        `SELECT ${idempotencyColumns} FROM idempotency_records
         WHERE api_key_id = ? AND endpoint = ? AND key = ?`,
        toIdempotency,
        apiKeyId,
        endpoint,
        key,
      ),
  };
}
