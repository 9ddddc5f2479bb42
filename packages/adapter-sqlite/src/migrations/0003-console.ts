/**
 * The web console: one-time sign-in tokens and sessions (each stored only as a hash of its
 * secret, swept once expired), an optional name for API keys, shown in the console's list, and
 * the index of the overview's chart.
 */
export const consoleSchema = /* sql */ `
CREATE TABLE console_sign_in_tokens (
  token_hash TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;
CREATE INDEX console_sign_in_tokens_expiry ON console_sign_in_tokens (expires_at);
CREATE INDEX console_sign_in_tokens_organization ON console_sign_in_tokens (organization_id);

CREATE TABLE console_sessions (
  id_hash TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
CREATE INDEX console_sessions_organization ON console_sessions (organization_id);

ALTER TABLE api_keys ADD COLUMN name TEXT;

-- The console's overview counts the last day's messages by hour and status: an index range
-- read that never touches the table.
CREATE INDEX messages_organization_created ON messages (organization_id, created_at, status);
`;
