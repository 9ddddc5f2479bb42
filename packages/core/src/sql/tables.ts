import type { SqlCodec } from "./codec.js";
import { toJson } from "./json.js";

/**
 * A table's name, the columns a record is made of (in insert order), and the columns whose
 * stored form differs from the record's value: JSON and flags (booleans).
 */
export interface SqlTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly json: readonly string[];
  readonly flags: readonly string[];
}

const table = (
  name: string,
  columns: string,
  kinds: { json?: readonly string[]; flags?: readonly string[] } = {},
): SqlTable => ({
  name,
  columns: columns.split(/,\s*/),
  json: kinds.json ?? [],
  flags: kinds.flags ?? [],
});

/** Every table a record is read from, as both SQL databases define it. */
export const sqlTables = {
  organizations: table("organizations", "id, name, created_at"),
  organizationSettings: table(
    "organization_settings",
    "organization_id, allowed_countries, blocked_number_types, destination_limits, " +
      "prefix_limits, country_daily_limits, updated_at",
    {
      json: [
        "allowed_countries",
        "blocked_number_types",
        "destination_limits",
        "prefix_limits",
        "country_daily_limits",
      ],
    },
  ),
  profiles: table(
    "profiles",
    "seq, id, organization_id, phone_number, email, first_name, last_name, " +
      "viber_marketing_consent, sms_marketing_consent, attributes, source, status, " +
      "created_at, updated_at, deleted_at, time_zone",
    { json: ["attributes"], flags: ["viber_marketing_consent", "sms_marketing_consent"] },
  ),
  consentChanges: table(
    "consent_changes",
    "id, organization_id, profile_id, channel, old_value, new_value, api_key_id, changed_at, " +
      "source, note",
    { flags: ["old_value", "new_value"] },
  ),
  contactLists: table("contact_lists", "id, organization_id, name, created_at"),
  listMemberships: table("list_memberships", "list_id, profile_id, organization_id, added_at"),
  campaigns: table(
    "campaigns",
    "id, organization_id, name, channel, sms_fallback, category, sender, template, " +
      "ttl_seconds, status, created_at, updated_at, sms_sender, track_links, sending_window, " +
      "allowed_countries",
    { json: ["sending_window", "allowed_countries"], flags: ["sms_fallback", "track_links"] },
  ),
  apiKeys: table(
    "api_keys",
    "id, organization_id, secret_hash, webhook_signing_secret_sealed, scopes, expires_at, " +
      "revoked_at, created_at, name",
    { json: ["scopes"] },
  ),
  messages: table(
    "messages",
    "id, organization_id, api_key_id, campaign_id, profile_id, phone_number, category, " +
      "channel, sms_fallback_allowed, sender, body, client_reference, webhook_url, status, " +
      "error, expires_at, created_at, updated_at, viber_provider, viber_provider_message_id, " +
      "sms_provider, sms_provider_message_id, fallback_due_at, scheduled_for, sms_sent_from, " +
      "viber_leg_notes, sms_leg_notes",
    { json: ["error", "viber_leg_notes", "sms_leg_notes"], flags: ["sms_fallback_allowed"] },
  ),
  messageEvents: table(
    "message_events",
    "id, organization_id, message_id, topic, channel, error, created_at",
    { json: ["error"] },
  ),
  webhookSubscriptions: table(
    "webhook_subscriptions",
    "id, organization_id, url, topics, status, description, secret_sealed, disabled_reason, " +
      "failing_since, created_at, updated_at",
    { json: ["topics"] },
  ),
  deliveries: table(
    "deliveries",
    "id, organization_id, event_id, message_id, topic, destination, destination_key, payload, " +
      "status, attempts, next_attempt_at, first_attempt_at, lease_owner, lease_expires_at, " +
      "last_status_code, last_error, last_attempt_at, window_start_attempt, created_at, " +
      "updated_at",
    { json: ["destination"] },
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
    { json: ["response"] },
  ),
  consoleSignInTokens: table(
    "console_sign_in_tokens",
    "token_hash, organization_id, created_at, expires_at",
  ),
  consoleSessions: table(
    "console_sessions",
    "id_hash, organization_id, created_at, last_seen_at, expires_at",
  ),
  links: table(
    "links",
    "code, message_id, organization_id, original_url, created_at, clicks, first_clicked_at, " +
      "last_clicked_at",
  ),
  suppressionKeys: table("suppression_keys", "organization_id, key_sealed, created_at"),
  suppressions: table(
    "suppressions",
    "id, organization_id, channel, phone_hash, source, keyword, provider, note, " +
      "consent_before, created_at, profile_id, inbound_id",
    { flags: ["consent_before"] },
  ),
  inboundMessages: table(
    "inbound_messages",
    "id, organization_id, provider, provider_message_id, channel, from_number, to_sender, " +
      "text, keyword_class, profile_id, received_at",
  ),
  senderAssignments: table("sender_assignments", "organization_id, channel, sender, created_at"),
  messagePrices: table(
    "message_prices",
    "message_id, organization_id, channel, provider, amount_micros, currency, country, " +
      "reported_at",
  ),
} as const satisfies Record<string, SqlTable>;

/** The columns an INSERT names, in the order of `table.columns`. */
export const insertColumns = (table: SqlTable): string => table.columns.join(", ");

/**
 * The placeholders of a whole record of `table`, `(…, …)` in column order, numbered from
 * `first`: what follows `VALUES` in an insert of `rowValues`.
 */
export const insertPlaceholders = (table: SqlTable, codec: SqlCodec, first = 1): string =>
  `(${table.columns
    .map((column, i) => codec.placeholder(first + i, table.json.includes(column)))
    .join(", ")})`;

/**
 * The statement that inserts one whole record of `table` (bound with `rowValues`), into the
 * table named `name` (schema-qualified where the database needs it).
 */
export const insertStatement = (table: SqlTable, codec: SqlCodec, name = table.name): string =>
  `INSERT INTO ${name} (${insertColumns(table)}) VALUES ${insertPlaceholders(table, codec)}`;

const toField = (column: string): string =>
  column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

const toColumn = (field: string): string =>
  field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * Every column of the schema with its field, translated once: each row written translates each
 * of its columns, and the regular expression cost a 20-column row several microseconds.
 */
const FIELD_OF_COLUMN = new Map(
  Object.values(sqlTables).flatMap((t) => t.columns.map((column) => [column, toField(column)])),
);
const COLUMN_OF_FIELD = new Map([...FIELD_OF_COLUMN].map(([column, field]) => [field, column]));

/** `snake_case` column to the `camelCase` record field it holds. */
export const fieldOf = (column: string): string => FIELD_OF_COLUMN.get(column) ?? toField(column);

/** The `snake_case` column of a `camelCase` record field. */
const columnOf = (field: string): string => COLUMN_OF_FIELD.get(field) ?? toColumn(field);

/** A field's value as `column` of `table` stores it: JSON as text, flags as `codec` says. */
function encode(table: SqlTable, column: string, value: unknown, codec: SqlCodec): unknown {
  if (value === undefined) {
    throw new Error(`A ${table.name} record has no value for column ${column}.`);
  }
  if (value === null) return null;
  if (table.json.includes(column)) return toJson(value);
  if (!table.flags.includes(column)) return value;
  if (typeof value !== "boolean") {
    throw new Error(`A ${table.name} record holds a non-boolean in flag column ${column}.`);
  }
  return codec.writeFlag(value);
}

/**
 * A record's values in the order of `table.columns`, each column holding the record's field of
 * the same name in camelCase: JSON as text, flags as `codec` stores them, `null` as SQL NULL.
 * The inverse of the table's decoder in `records.ts`, so a round trip gives the record back.
 */
export const rowValues = (table: SqlTable, record: object, codec: SqlCodec): unknown[] =>
  table.columns.map((column) =>
    encode(table, column, (record as Record<string, unknown>)[fieldOf(column)], codec),
  );

/**
 * A record as one element of a JSON array of rows (for PostgreSQL's `jsonb_populate_recordset`,
 * which fills a row of the table from each): each column under its own name, encoded as
 * `rowValues` encodes it, except that a JSON column holds its value itself, not its text.
 */
export const jsonRow = (table: SqlTable, record: object, codec: SqlCodec): object =>
  Object.fromEntries(
    table.columns.map((column) => {
      const value = (record as Record<string, unknown>)[fieldOf(column)];
      const asJson = table.json.includes(column) && value !== undefined;
      return [column, asJson ? value : encode(table, column, value, codec)];
    }),
  );

/**
 * The `SET` list of an update that writes each field of `changes` that is present (an
 * `undefined` one is left as stored), numbered from `first`, and its values encoded as
 * `rowValues` encodes them. Only the changed columns are written, so a concurrent writer's
 * other fields stay.
 */
export function setClause(
  table: SqlTable,
  changes: object,
  codec: SqlCodec,
  first = 1,
): { set: string; values: unknown[] } {
  const set: string[] = [];
  const values: unknown[] = [];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    const column = columnOf(field);
    if (!table.columns.includes(column)) {
      throw new Error(`Table ${table.name} has no column ${column} for field ${field}.`);
    }
    values.push(encode(table, column, value, codec));
    set.push(
      `${column} = ${codec.placeholder(first + values.length - 1, table.json.includes(column))}`,
    );
  }
  return { set: set.join(", "), values };
}

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
