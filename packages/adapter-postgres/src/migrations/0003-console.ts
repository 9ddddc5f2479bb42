/**
 * The web console: one-time sign-in tokens and sessions (each stored only as a hash of its
 * secret, swept once expired), and an optional name for API keys, shown in the console's list.
 * Same conventions as the first schema: ISO timestamps as "C"-collated text.
 */
export const consoleSchema: readonly string[] = [
  `CREATE TABLE console_sign_in_tokens (
    token_hash TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL
  )`,
  `CREATE INDEX console_sign_in_tokens_expiry ON console_sign_in_tokens (expires_at)`,
  `CREATE INDEX console_sign_in_tokens_organization ON console_sign_in_tokens (organization_id)`,
  `CREATE TABLE console_sessions (
    id_hash TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    last_seen_at TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL
  )`,
  `CREATE INDEX console_sessions_expiry ON console_sessions (expires_at)`,
  `CREATE INDEX console_sessions_organization ON console_sessions (organization_id)`,
  `ALTER TABLE api_keys ADD COLUMN name TEXT`,
  // The overview counts the last day's messages by hour and status from this index alone.
  `CREATE INDEX messages_organization_created ON messages (organization_id, created_at, status)`,
];
