/** A PostgreSQL identifier, double-quoted so any schema name is taken literally. */
export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** The schema-qualified, quoted name of every table, so no query depends on `search_path`. */
export interface Tables {
  /** The schema's name as given (unquoted), e.g. for notification payloads. */
  readonly schema: string;
  readonly organizations: string;
  readonly organizationSettings: string;
  readonly profiles: string;
  readonly consentChanges: string;
  readonly contactLists: string;
  readonly listMemberships: string;
  readonly campaigns: string;
  readonly apiKeys: string;
  readonly messages: string;
  readonly messageEvents: string;
  readonly webhookSubscriptions: string;
  readonly deliveries: string;
  readonly deliveryAttempts: string;
  readonly rateLimitHits: string;
  readonly idempotencyRecords: string;
  readonly consoleSignInTokens: string;
  readonly consoleSessions: string;
  readonly links: string;
  readonly suppressionKeys: string;
  readonly suppressions: string;
  readonly inboundMessages: string;
  readonly senderAssignments: string;
  readonly messagePrices: string;
  readonly schemaMigrations: string;
  /** The rate-limit hit function (migration 6). */
  readonly rateLimitHit: string;
  /** A send's hit on its key's and its destination's limits (migration 17). */
  readonly sendHit: string;
  /** The guard of a recovery point's mark (migration 14). */
  readonly idempotencyHeld: string;
}

/** The tables of one schema. */
export function tablesIn(schema: string): Tables {
  const q = (table: string) => `${quoteIdent(schema)}.${quoteIdent(table)}`;
  return {
    schema,
    organizations: q("organizations"),
    organizationSettings: q("organization_settings"),
    profiles: q("profiles"),
    consentChanges: q("consent_changes"),
    contactLists: q("contact_lists"),
    listMemberships: q("list_memberships"),
    campaigns: q("campaigns"),
    apiKeys: q("api_keys"),
    messages: q("messages"),
    messageEvents: q("message_events"),
    webhookSubscriptions: q("webhook_subscriptions"),
    deliveries: q("deliveries"),
    deliveryAttempts: q("delivery_attempts"),
    rateLimitHits: q("rate_limit_hits"),
    idempotencyRecords: q("idempotency_records"),
    consoleSignInTokens: q("console_sign_in_tokens"),
    consoleSessions: q("console_sessions"),
    links: q("links"),
    suppressionKeys: q("suppression_keys"),
    suppressions: q("suppressions"),
    inboundMessages: q("inbound_messages"),
    senderAssignments: q("sender_assignments"),
    messagePrices: q("message_prices"),
    schemaMigrations: q("schema_migrations"),
    rateLimitHit: q("rate_limit_hit"),
    idempotencyHeld: q("idempotency_held"),
    sendHit: q("send_hit"),
  };
}

/** The schema used when none is given. */
export const DEFAULT_SCHEMA = "public";
