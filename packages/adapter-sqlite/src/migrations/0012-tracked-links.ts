/**
 * The tracked links of messages: each short code with the URL it stands for, its message and
 * its clicks. The code is the primary key (a redirect looks it up alone); the message index
 * serves the message view and the retention sweep, which deletes a message's links with it.
 * A campaign's `track_links` turns the rewriting on (0 for every existing campaign).
 */
export const trackedLinks = /* sql */ `
ALTER TABLE campaigns ADD COLUMN track_links INTEGER NOT NULL DEFAULT 0;
CREATE TABLE links (
  code TEXT PRIMARY KEY,
  message_id TEXT NOT NULL REFERENCES messages (id),
  organization_id TEXT NOT NULL,
  original_url TEXT NOT NULL,
  created_at TEXT NOT NULL,
  clicks INTEGER NOT NULL DEFAULT 0,
  first_clicked_at TEXT,
  last_clicked_at TEXT
) WITHOUT ROWID;
CREATE INDEX links_message ON links (message_id);
`;
