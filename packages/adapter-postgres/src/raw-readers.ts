import type { RawReaders } from "@tidings/core/testing";
import type { PgQueryable } from "./pg-client.js";
import { apiKeyColumns, toApiKey } from "./repositories/api-keys.js";
import { campaignColumns, toCampaign } from "./repositories/campaigns.js";
import { consentColumns, toConsentChange } from "./repositories/consent.js";
import { membershipColumns, toMembership } from "./repositories/contact-lists.js";
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
import { DEFAULT_SCHEMA, tablesIn } from "./tables.js";

/**
 * The contract suite's oracle: plain SQL straight on the schema's tables, bypassing the
 * repositories and every status or organization filter. Only the row-to-record mapping is
 * shared with the storage.
 */
export function postgresRawReaders(client: PgQueryable, schema = DEFAULT_SCHEMA): RawReaders {
  const t = tablesIn(schema);
  const many = async <Row, T>(text: string, map: (row: Row) => T, ...values: unknown[]) =>
    ((await client.query(text, values)).rows as Row[]).map(map);
  const one = async <Row, T>(text: string, map: (row: Row) => T, ...values: unknown[]) =>
    (await many(text, map, ...values))[0] ?? null;
  return {
    profile: (id) =>
      one(`SELECT ${profileColumns} FROM ${t.profiles} WHERE id = $1`, toProfile, id),
    memberships: (profileId) =>
      many(
        `SELECT ${membershipColumns} FROM ${t.listMemberships} WHERE profile_id = $1 ORDER BY seq`,
        toMembership,
        profileId,
      ),
    consentChanges: (profileId) =>
      many(
        `SELECT ${consentColumns} FROM ${t.consentChanges} WHERE profile_id = $1
         ORDER BY changed_at, id`,
        toConsentChange,
        profileId,
      ),
    campaign: (id) =>
      one(`SELECT ${campaignColumns} FROM ${t.campaigns} WHERE id = $1`, toCampaign, id),
    apiKey: (id) => one(`SELECT ${apiKeyColumns} FROM ${t.apiKeys} WHERE id = $1`, toApiKey, id),
    message: (id) =>
      one(`SELECT ${messageColumns} FROM ${t.messages} WHERE id = $1`, toMessage, id),
    events: (messageId) =>
      many(
        `SELECT ${eventColumns} FROM ${t.messageEvents} WHERE message_id = $1
         ORDER BY created_at, id`,
        toMessageEvent,
        messageId,
      ),
    webhook: (id) =>
      one(`SELECT ${webhookColumns} FROM ${t.webhookSubscriptions} WHERE id = $1`, toWebhook, id),
    delivery: (id) =>
      one(`SELECT ${deliveryColumns()} FROM ${t.deliveries} WHERE id = $1`, toDelivery, id),
    deliveries: () =>
      many(`SELECT ${deliveryColumns()} FROM ${t.deliveries} ORDER BY created_at, id`, toDelivery),
    attempts: (deliveryId) =>
      many(
        `SELECT ${attemptColumns} FROM ${t.deliveryAttempts} WHERE delivery_id = $1
         ORDER BY attempt, seq`,
        toAttempt,
        deliveryId,
      ),
    idempotency: (apiKeyId, endpoint, key) =>
      one(
        `SELECT ${idempotencyColumns} FROM ${t.idempotencyRecords}
         WHERE api_key_id = $1 AND endpoint = $2 AND key = $3`,
        toIdempotency,
        apiKeyId,
        endpoint,
        key,
      ),
  };
}
