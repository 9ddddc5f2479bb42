/**
 * Abuse protection. Each organization's settings (where and how often it may send; no row means
 * the defaults), a campaign's own narrower list of countries (NULL: the organization's), and
 * the counters of the per-destination limits: one row per counted send for the sliding windows
 * of a number or a prefix, and one total per country for its UTC day. Counter keys hold a keyed
 * hash of a number, never the number.
 */
export const abuseProtection = /* sql */ `
CREATE TABLE organization_settings (
  organization_id TEXT PRIMARY KEY REFERENCES organizations (id),
  allowed_countries TEXT,
  blocked_number_types TEXT NOT NULL,
  destination_limits TEXT NOT NULL,
  prefix_limits TEXT NOT NULL,
  country_daily_limits TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
ALTER TABLE campaigns ADD COLUMN allowed_countries TEXT;
CREATE TABLE destination_hits (
  key TEXT NOT NULL,
  at INTEGER NOT NULL
) STRICT;
CREATE INDEX destination_hits_key_at ON destination_hits (key, at);
CREATE TABLE destination_totals (
  key TEXT PRIMARY KEY,
  n INTEGER NOT NULL,
  until INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
`;
