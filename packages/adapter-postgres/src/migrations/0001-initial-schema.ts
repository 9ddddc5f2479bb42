/**
 * The first schema, one statement per entry (PGlite's `query` takes one statement at a time).
 * Runs with `search_path` set to the target schema, so names here are unqualified.
 *
 * Conventions: public ids are TEXT, JSON values JSONB (except a delivery's payload: the exact
 * bytes posted), timestamps ISO 8601 UTC TEXT as the core's clock writes them (fixed width, so
 * they sort and compare as text). Ids and timestamps use the "C" collation: byte order, the
 * same as the in-memory reference's string order, whatever the database's locale.
 * Lists "oldest first" order by the timestamp, then the id.
 */
export const initialSchema: readonly string[] = [
  `CREATE TABLE organizations (
    id TEXT COLLATE "C" PRIMARY KEY,
    name TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL
  )`,

  `CREATE TABLE profiles (
    -- An identity is never handed out twice, so list cursors stay stable.
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization_id TEXT COLLATE "C" NOT NULL,
    phone_number TEXT COLLATE "C" NOT NULL,
    email TEXT,
    -- Lowercased in JavaScript, so matching does not depend on the database's locale.
    email_lower TEXT COLLATE "C",
    first_name TEXT,
    last_name TEXT,
    viber_marketing_consent BOOLEAN NOT NULL,
    sms_marketing_consent BOOLEAN NOT NULL,
    attributes JSONB NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL,
    deleted_at TEXT COLLATE "C"
  )`,
  // One active holder per number and organization, also across processes; a deleted profile
  // frees its number.
  `CREATE UNIQUE INDEX profiles_active_phone ON profiles (organization_id, phone_number)
    WHERE status = 'active'`,
  `CREATE INDEX profiles_active_email ON profiles (organization_id, email_lower, seq)
    WHERE status = 'active'`,
  `CREATE INDEX profiles_active_seq ON profiles (organization_id, seq) WHERE status = 'active'`,

  `CREATE TABLE consent_changes (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization_id TEXT COLLATE "C" NOT NULL,
    profile_id TEXT COLLATE "C" NOT NULL REFERENCES profiles (id),
    channel TEXT NOT NULL CHECK (channel IN ('viber', 'sms')),
    old_value BOOLEAN,
    new_value BOOLEAN NOT NULL,
    api_key_id TEXT COLLATE "C",
    changed_at TEXT COLLATE "C" NOT NULL
  )`,
  `CREATE INDEX consent_changes_profile ON consent_changes (profile_id, changed_at, id)`,

  `CREATE TABLE contact_lists (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization_id TEXT COLLATE "C" NOT NULL,
    name TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    CONSTRAINT contact_lists_name UNIQUE (organization_id, name)
  )`,
  `CREATE INDEX contact_lists_organization ON contact_lists (organization_id, created_at, id)`,

  `CREATE TABLE list_memberships (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    list_id TEXT COLLATE "C" NOT NULL REFERENCES contact_lists (id),
    profile_id TEXT COLLATE "C" NOT NULL REFERENCES profiles (id),
    organization_id TEXT COLLATE "C" NOT NULL,
    added_at TEXT COLLATE "C" NOT NULL,
    CONSTRAINT list_memberships_pair UNIQUE (list_id, profile_id)
  )`,
  `CREATE INDEX list_memberships_list ON list_memberships (list_id, added_at, seq)`,
  `CREATE INDEX list_memberships_profile ON list_memberships (profile_id, added_at, seq)`,

  `CREATE TABLE campaigns (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization_id TEXT COLLATE "C" NOT NULL,
    name TEXT NOT NULL,
    channel TEXT NOT NULL CHECK (channel IN ('viber', 'sms')),
    sms_fallback BOOLEAN NOT NULL,
    category TEXT NOT NULL,
    sender TEXT NOT NULL,
    template TEXT NOT NULL,
    ttl_seconds INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL
  )`,
  `CREATE INDEX campaigns_organization ON campaigns (organization_id, created_at, id)`,

  `CREATE TABLE api_keys (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization_id TEXT COLLATE "C" NOT NULL,
    secret_hash TEXT NOT NULL,
    webhook_signing_secret_sealed TEXT NOT NULL,
    scopes JSONB NOT NULL,
    expires_at TEXT COLLATE "C",
    revoked_at TEXT COLLATE "C",
    created_at TEXT COLLATE "C" NOT NULL
  )`,
  `CREATE INDEX api_keys_organization ON api_keys (organization_id, created_at, id)`,

  `CREATE TABLE messages (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization_id TEXT COLLATE "C" NOT NULL,
    api_key_id TEXT COLLATE "C" NOT NULL,
    campaign_id TEXT COLLATE "C" NOT NULL,
    profile_id TEXT COLLATE "C" NOT NULL,
    phone_number TEXT NOT NULL,
    category TEXT NOT NULL,
    channel TEXT NOT NULL CHECK (channel IN ('viber', 'sms')),
    sms_fallback_allowed BOOLEAN NOT NULL,
    sender TEXT NOT NULL,
    body TEXT NOT NULL,
    client_reference TEXT,
    webhook_url TEXT,
    status TEXT NOT NULL,
    error JSONB,
    expires_at TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL
  )`,
  // The expiry sweep only ever looks at messages still `sent`.
  `CREATE INDEX messages_expiry ON messages (expires_at, id) WHERE status = 'sent'`,

  `CREATE TABLE message_events (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization_id TEXT COLLATE "C" NOT NULL,
    message_id TEXT COLLATE "C" NOT NULL REFERENCES messages (id),
    topic TEXT NOT NULL,
    channel TEXT NOT NULL,
    error JSONB,
    created_at TEXT COLLATE "C" NOT NULL
  )`,
  `CREATE INDEX message_events_message ON message_events (message_id, created_at, id)`,

  `CREATE TABLE webhook_subscriptions (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization_id TEXT COLLATE "C" NOT NULL,
    url TEXT NOT NULL,
    topics JSONB NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
    description TEXT,
    secret_sealed TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL
  )`,
  `CREATE INDEX webhook_subscriptions_organization
    ON webhook_subscriptions (organization_id, created_at, id)`,

  `CREATE TABLE deliveries (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization_id TEXT COLLATE "C" NOT NULL,
    event_id TEXT COLLATE "C" NOT NULL,
    message_id TEXT COLLATE "C",
    topic TEXT NOT NULL,
    destination JSONB NOT NULL,
    -- Derived from destination, so cancelling a subscription's deliveries is an index lookup.
    webhook_id TEXT COLLATE "C" GENERATED ALWAYS AS (destination ->> 'webhookId') STORED,
    -- What per-destination concurrency counts by; a claim can pass over saturated destinations.
    destination_key TEXT COLLATE "C" NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
    attempts INTEGER NOT NULL,
    next_attempt_at TEXT COLLATE "C" NOT NULL,
    first_attempt_at TEXT COLLATE "C",
    lease_owner TEXT,
    lease_expires_at TEXT COLLATE "C",
    last_status_code INTEGER,
    last_error TEXT,
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL
  )`,
  // Claiming due deliveries and the idle engine's next wake-up look at pending rows only.
  `CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'pending'`,
  // A claim that passes over saturated destinations steps from one pending destination to the
  // next here and reads only the others' due rows, never a saturated destination's backlog.
  `CREATE INDEX deliveries_destination_due ON deliveries (destination_key, next_attempt_at, id)
    WHERE status = 'pending'`,
  `CREATE INDEX deliveries_message ON deliveries (message_id, created_at, id)`,
  `CREATE INDEX deliveries_subscription ON deliveries (webhook_id) WHERE status = 'pending'`,

  `CREATE TABLE delivery_attempts (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id TEXT COLLATE "C" NOT NULL REFERENCES deliveries (id),
    organization_id TEXT COLLATE "C" NOT NULL,
    attempt INTEGER NOT NULL,
    started_at TEXT COLLATE "C" NOT NULL,
    duration_ms INTEGER NOT NULL,
    status_code INTEGER,
    error TEXT,
    response_body TEXT
  )`,
  `CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt, seq)`,

  `CREATE TABLE rate_limit_hits (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key TEXT COLLATE "C" NOT NULL,
    -- Milliseconds since the epoch, as the port counts them.
    at BIGINT NOT NULL
  )`,
  `CREATE INDEX rate_limit_hits_key ON rate_limit_hits (key, at)`,

  `CREATE TABLE idempotency_records (
    api_key_id TEXT COLLATE "C" NOT NULL,
    endpoint TEXT COLLATE "C" NOT NULL,
    key TEXT COLLATE "C" NOT NULL,
    request_hash TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
    response JSONB,
    -- While in progress: when a retry may resume the key (the holder died), and its token.
    locked_until TEXT COLLATE "C",
    -- What the request committed, written with its work, so a resumed retry answers from it.
    recovery_point TEXT,
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (api_key_id, endpoint, key)
  )`,
  `CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at)`,
];
