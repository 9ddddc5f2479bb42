/**
 * Consent that closes the loop. Suppressions keep a number an organization must not send to on
 * one channel, under a keyed hash of the number (the key per organization, sealed, in
 * `suppression_keys`); retention never touches either. Inbound messages are what people sent
 * to our senders, stored once per provider message id and swept with messages. Sender
 * assignments are an operator's word that a sender belongs to an organization. The consent
 * history gains what made each change (every earlier change was made through the API or an
 * import; `api` stands for both). The index on messages serves the ownership of an inbound
 * message: which organizations sent to this number from this sender.
 */
export const consentLoop: readonly string[] = [
  `ALTER TABLE consent_changes ADD COLUMN source TEXT NOT NULL DEFAULT 'api'
    CHECK (source IN ('api', 'import', 'console', 'inbound', 'provider'))`,
  `CREATE TABLE suppression_keys (
    organization_id TEXT COLLATE "C" PRIMARY KEY,
    key_sealed TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL
  )`,
  `CREATE TABLE suppressions (
    id TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL,
    channel TEXT NOT NULL CHECK (channel IN ('viber', 'sms')),
    phone_hash TEXT COLLATE "C" NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('inbound', 'provider', 'api')),
    keyword TEXT,
    provider TEXT,
    note TEXT,
    consent_before BOOLEAN,
    created_at TEXT COLLATE "C" NOT NULL,
    CONSTRAINT suppressions_number UNIQUE (organization_id, channel, phone_hash)
  )`,
  "CREATE INDEX suppressions_page ON suppressions (organization_id, id)",
  "CREATE INDEX suppressions_hash ON suppressions (organization_id, phone_hash)",
  `CREATE TABLE inbound_messages (
    id TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL,
    provider TEXT COLLATE "C" NOT NULL,
    provider_message_id TEXT COLLATE "C" NOT NULL,
    channel TEXT NOT NULL CHECK (channel IN ('viber', 'sms')),
    from_number TEXT COLLATE "C" NOT NULL,
    to_sender TEXT NOT NULL,
    text TEXT NOT NULL,
    keyword_class TEXT CHECK (keyword_class IN ('opt_out', 'opt_in', 'help')),
    profile_id TEXT COLLATE "C",
    received_at TEXT COLLATE "C" NOT NULL,
    CONSTRAINT inbound_messages_once UNIQUE (organization_id, provider, provider_message_id)
  )`,
  "CREATE INDEX inbound_messages_page ON inbound_messages (organization_id, id)",
  "CREATE INDEX inbound_messages_from ON inbound_messages (organization_id, from_number, id)",
  "CREATE INDEX inbound_messages_received ON inbound_messages (received_at)",
  `CREATE TABLE sender_assignments (
    organization_id TEXT COLLATE "C" NOT NULL,
    channel TEXT NOT NULL CHECK (channel IN ('viber', 'sms')),
    sender TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (organization_id, channel, sender)
  )`,
  "CREATE INDEX sender_assignments_sender ON sender_assignments (channel, sender)",
  "CREATE INDEX messages_phone_sender ON messages (phone_number, sender, created_at)",
];
