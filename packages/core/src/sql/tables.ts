import type { SqlCodec } from "./codec.js";

/** A table's name, the columns a record is made of (in insert order), and its JSON columns. */
export interface SqlTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly json: readonly string[];
}

const table = (name: string, columns: string, json: readonly string[] = []): SqlTable => ({
  name,
  columns: columns.split(/,\s*/),
  json,
});

/** Every table a record is read from, as both SQL databases define it. */
export const sqlTables = {
  organizations: table("organizations", "id, name, created_at"),
  profiles: table(
    "profiles",
    "seq, id, organization_id, phone_number, email, first_name, last_name, " +
      "viber_marketing_consent, sms_marketing_consent, attributes, source, status, " +
      "created_at, updated_at, deleted_at",
    ["attributes"],
  ),
  consentChanges: table(
    "consent_changes",
    "id, organization_id, profile_id, channel, old_value, new_value, api_key_id, changed_at",
  ),
  contactLists: table("contact_lists", "id, organization_id, name, created_at"),
  listMemberships: table("list_memberships", "list_id, profile_id, organization_id, added_at"),
  campaigns: table(
    "campaigns",
    "id, organization_id, name, channel, sms_fallback, category, sender, template, " +
      "ttl_seconds, status, created_at, updated_at",
  ),
  apiKeys: table(
    "api_keys",
    "id, organization_id, secret_hash, webhook_signing_secret_sealed, scopes, expires_at, " +
      "revoked_at, created_at, name",
    ["scopes"],
  ),
  messages: table(
    "messages",
    "id, organization_id, api_key_id, campaign_id, profile_id, phone_number, category, " +
      "channel, sms_fallback_allowed, sender, body, client_reference, webhook_url, status, " +
      "error, expires_at, created_at, updated_at",
    ["error"],
  ),
  messageEvents: table(
    "message_events",
    "id, organization_id, message_id, topic, channel, error, created_at",
    ["error"],
  ),
  webhookSubscriptions: table(
    "webhook_subscriptions",
    "id, organization_id, url, topics, status, description, secret_sealed, created_at, " +
      "updated_at",
    ["topics"],
  ),
  deliveries: table(
    "deliveries",
    "id, organization_id, event_id, message_id, topic, destination, destination_key, payload, " +
      "status, attempts, next_attempt_at, first_attempt_at, lease_owner, lease_expires_at, " +
      "last_status_code, last_error, last_attempt_at, window_start_attempt, created_at, " +
      "updated_at",
    ["destination"],
  ),
  deliveryAttempts: table(
    "delivery_attempts",
    "delivery_id, organization_id, attempt, started_at, duration_ms, status_code, error, " +
      "response_body",
  ),
  idempotencyRecords: table(
    "idempotency_records",
    "api_key_id, endpoint, key, request_hash, state, response, locked_until, recovery_point, " +
      "created_at, expires_at",
    ["response"],
  ),
} as const satisfies Record<string, SqlTable>;

/** The columns an INSERT names, in the order of `table.columns`. */
export const insertColumns = (table: SqlTable): string => table.columns.join(", ");

/**
 * The select list that reads a record of `table`, qualified by `alias` (e.g. `"d."`) when
 * given: JSON columns are selected the way `codec` reads them back as text.
 */
export const selectColumns = (table: SqlTable, codec: SqlCodec, alias = ""): string =>
  table.columns
    .map((column) =>
      table.json.includes(column) ? codec.selectJson(column, alias) : alias + column,
    )
    .join(", ");

/** The name of each table a record is read from. */
export type SqlTableName = keyof typeof sqlTables;

/** Every table's select list for `codec`, computed once. */
export const selectLists = (codec: SqlCodec): Record<SqlTableName, string> =>
  Object.fromEntries(
    Object.entries(sqlTables).map(([name, table]) => [name, selectColumns(table, codec)]),
  ) as Record<SqlTableName, string>;
