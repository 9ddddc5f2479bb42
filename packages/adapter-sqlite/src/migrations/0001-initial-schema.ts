/**
 * The first schema. Conventions: public ids are TEXT, JSON values are TEXT, flags are INTEGER
 * 0/1, timestamps are ISO 8601 UTC TEXT (fixed width, so they sort and compare lexically).
 * Lists "oldest first" order by the timestamp, then the id, then `seq` (the rowid, insertion
 * order), as the in-memory reference does; the indexes carry those columns so no list sorts.
 */
export const initialSchema = /* sql */ `
CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE profiles (
  -- AUTOINCREMENT: a seq is never handed out twice, so list cursors stay stable.
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  phone_number TEXT NOT NULL,
  email TEXT,
  -- Lowercased in JavaScript (Unicode-aware, unlike SQLite's lower()) for case-insensitive match.
  email_lower TEXT,
  first_name TEXT,
  last_name TEXT,
  viber_marketing_consent INTEGER NOT NULL CHECK (viber_marketing_consent IN (0, 1)),
  sms_marketing_consent INTEGER NOT NULL CHECK (sms_marketing_consent IN (0, 1)),
  attributes TEXT NOT NULL,
  source TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
-- One active holder per number and organization; a deleted profile frees its number.
CREATE UNIQUE INDEX profiles_active_phone ON profiles (organization_id, phone_number)
  WHERE status = 'active';
CREATE INDEX profiles_active_email ON profiles (organization_id, email_lower, seq)
  WHERE status = 'active';
-- The list cursor order.
CREATE INDEX profiles_active_seq ON profiles (organization_id, seq) WHERE status = 'active';

CREATE TABLE consent_changes (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  profile_id TEXT NOT NULL REFERENCES profiles (id),
  channel TEXT NOT NULL CHECK (channel IN ('viber', 'sms')),
  old_value INTEGER CHECK (old_value IN (0, 1)),
  new_value INTEGER NOT NULL CHECK (new_value IN (0, 1)),
  api_key_id TEXT,
  changed_at TEXT NOT NULL
) STRICT;
CREATE INDEX consent_changes_profile ON consent_changes (profile_id, changed_at, id);

CREATE TABLE contact_lists (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  CONSTRAINT contact_lists_name UNIQUE (organization_id, name)
) STRICT;
CREATE INDEX contact_lists_organization ON contact_lists (organization_id, created_at, id);

CREATE TABLE list_memberships (
  seq INTEGER PRIMARY KEY,
  list_id TEXT NOT NULL REFERENCES contact_lists (id),
  profile_id TEXT NOT NULL REFERENCES profiles (id),
  organization_id TEXT NOT NULL,
  added_at TEXT NOT NULL,
  CONSTRAINT list_memberships_pair UNIQUE (list_id, profile_id)
) STRICT;
CREATE INDEX list_memberships_list ON list_memberships (list_id, added_at);
CREATE INDEX list_memberships_profile ON list_memberships (profile_id, added_at);

CREATE TABLE campaigns (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  name TEXT NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('viber', 'sms')),
  sms_fallback INTEGER NOT NULL CHECK (sms_fallback IN (0, 1)),
  category TEXT NOT NULL,
  sender TEXT NOT NULL,
  template TEXT NOT NULL,
  ttl_seconds INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX campaigns_organization ON campaigns (organization_id, created_at, id);

CREATE TABLE api_keys (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  webhook_signing_secret_sealed TEXT NOT NULL,
  scopes TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX api_keys_organization ON api_keys (organization_id, created_at, id);

CREATE TABLE messages (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  api_key_id TEXT NOT NULL,
  campaign_id TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  phone_number TEXT NOT NULL,
  category TEXT NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('viber', 'sms')),
  sms_fallback_allowed INTEGER NOT NULL CHECK (sms_fallback_allowed IN (0, 1)),
  sender TEXT NOT NULL,
  body TEXT NOT NULL,
  client_reference TEXT,
  webhook_url TEXT,
  status TEXT NOT NULL,
  error TEXT,
  expires_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
-- The expiry sweep.
CREATE INDEX messages_expiry ON messages (status, expires_at, id);

CREATE TABLE message_events (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  message_id TEXT NOT NULL REFERENCES messages (id),
  topic TEXT NOT NULL,
  channel TEXT NOT NULL,
  error TEXT,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX message_events_message ON message_events (message_id, created_at, id);

CREATE TABLE webhook_subscriptions (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  url TEXT NOT NULL,
  topics TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
  description TEXT,
  secret_sealed TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX webhook_subscriptions_organization
  ON webhook_subscriptions (organization_id, created_at, id);

CREATE TABLE deliveries (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  message_id TEXT,
  topic TEXT NOT NULL,
  destination TEXT NOT NULL,
  -- Derived from destination, so cancelling a subscription's deliveries is an index lookup.
  webhook_id TEXT GENERATED ALWAYS AS (destination ->> '$.webhookId') VIRTUAL,
  -- What per-destination concurrency counts by; a claim can pass over saturated destinations.
  destination_key TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts INTEGER NOT NULL,
  next_attempt_at TEXT NOT NULL,
  first_attempt_at TEXT,
  lease_owner TEXT,
  lease_expires_at TEXT,
  last_status_code INTEGER,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
-- Claiming due deliveries and the idle engine's next wake-up. The delivery indexes hold pending
-- rows only: a delivery that ends leaves them, and its later changes touch none of them.
CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'pending';
-- A claim that passes over saturated destinations steps from one pending destination to the
-- next here and reads only the others' due rows, never a saturated destination's backlog.
CREATE INDEX deliveries_destination_due ON deliveries (destination_key, next_attempt_at, id)
  WHERE status = 'pending';
CREATE INDEX deliveries_message ON deliveries (message_id, created_at, id);
CREATE INDEX deliveries_subscription ON deliveries (webhook_id)
  WHERE status = 'pending' AND webhook_id IS NOT NULL;

CREATE TABLE delivery_attempts (
  seq INTEGER PRIMARY KEY,
  delivery_id TEXT NOT NULL REFERENCES deliveries (id),
  organization_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  response_body TEXT
) STRICT;
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt);

CREATE TABLE rate_limit_hits (
  seq INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  -- Milliseconds since the epoch, as the port counts them.
  at INTEGER NOT NULL
) STRICT;
CREATE INDEX rate_limit_hits_key ON rate_limit_hits (key, at);

CREATE TABLE idempotency_records (
  api_key_id TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
  response TEXT,
  -- While in progress: when a retry may resume the key (the holder died), and the holder's token.
  locked_until TEXT,
  -- What the request committed, written with its work, so a resumed retry answers from it.
  recovery_point TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (api_key_id, endpoint, key)
) STRICT;
CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at);
`;
