/**
 * The tracked links of messages: each short code with the URL it stands for, its message and
 * its clicks. The code is the primary key (a redirect looks it up alone); the message index
 * serves the message view and the retention sweep, which deletes a message's links with it.
 * A campaign's `track_links` turns the rewriting on; a constant default rewrites nothing.
 */
export const trackedLinks: readonly string[] = [
  "ALTER TABLE campaigns ADD COLUMN track_links BOOLEAN NOT NULL DEFAULT FALSE",
  `CREATE TABLE links (
    code TEXT COLLATE "C" PRIMARY KEY,
    message_id TEXT COLLATE "C" NOT NULL REFERENCES messages (id),
    organization_id TEXT COLLATE "C" NOT NULL,
    original_url TEXT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    clicks INTEGER NOT NULL DEFAULT 0,
    first_clicked_at TEXT COLLATE "C",
    last_clicked_at TEXT COLLATE "C"
  )`,
  "CREATE INDEX links_message ON links (message_id)",
];
