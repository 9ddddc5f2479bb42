import type { RawReaders } from "@tidings/core/testing";
import { records, select } from "../columns.js";
import type { PgQueryable } from "../pg-client.js";
import { DEFAULT_SCHEMA, tablesIn } from "../tables.js";

/**
 * The contract suite's oracle: plain SQL straight on the schema's tables, bypassing the
 * repositories and every status or organization filter. Only the row-to-record mapping is
 * shared with the storage.
 */
export function postgresRawReaders(client: PgQueryable, schema = DEFAULT_SCHEMA): RawReaders {
  const t = tablesIn(schema);
  const many = async <T>(text: string, map: (row: unknown) => T, ...values: unknown[]) =>
    (await client.query(text, values)).rows.map(map);
  const one = async <T>(text: string, map: (row: unknown) => T, ...values: unknown[]) =>
    (await many(text, map, ...values))[0] ?? null;
  return {
    profile: (id) =>
      one(`SELECT ${select.profiles} FROM ${t.profiles} WHERE id = $1`, records.profile, id),
    memberships: (profileId) =>
      many(
        `SELECT ${select.listMemberships} FROM ${t.listMemberships} WHERE profile_id = $1 ORDER BY seq`,
        records.membership,
        profileId,
      ),
    consentChanges: (profileId) =>
      many(
        `SELECT ${select.consentChanges} FROM ${t.consentChanges} WHERE profile_id = $1
         ORDER BY changed_at, id`,
        records.consentChange,
        profileId,
      ),
    campaign: (id) =>
      one(`SELECT ${select.campaigns} FROM ${t.campaigns} WHERE id = $1`, records.campaign, id),
    apiKey: (id) =>
      one(`SELECT ${select.apiKeys} FROM ${t.apiKeys} WHERE id = $1`, records.apiKey, id),
    message: (id) =>
      one(`SELECT ${select.messages} FROM ${t.messages} WHERE id = $1`, records.message, id),
    events: (messageId) =>
      many(
        `SELECT ${select.messageEvents} FROM ${t.messageEvents} WHERE message_id = $1
         ORDER BY created_at, id`,
        records.messageEvent,
        messageId,
      ),
    webhook: (id) =>
      one(
        `SELECT ${select.webhookSubscriptions} FROM ${t.webhookSubscriptions} WHERE id = $1`,
        records.webhook,
        id,
      ),
    delivery: (id) =>
      one(`SELECT ${select.deliveries} FROM ${t.deliveries} WHERE id = $1`, records.delivery, id),
    deliveries: () =>
      many(
        `SELECT ${select.deliveries} FROM ${t.deliveries} ORDER BY created_at, id`,
        records.delivery,
      ),
    attempts: (deliveryId) =>
      many(
        `SELECT ${select.deliveryAttempts} FROM ${t.deliveryAttempts} WHERE delivery_id = $1
         ORDER BY attempt, seq`,
        records.attempt,
        deliveryId,
      ),
    idempotency: (apiKeyId, endpoint, key) =>
      one(
        `SELECT ${select.idempotencyRecords} FROM ${t.idempotencyRecords}
         WHERE api_key_id = $1 AND endpoint = $2 AND key = $3`,
        records.idempotency,
        apiKeyId,
        endpoint,
        key,
      ),
  };
}
