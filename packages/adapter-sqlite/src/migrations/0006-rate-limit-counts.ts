/**
 * How many hits each rate-limit key holds, kept by triggers, so a hit reads one row instead of
 * counting the window's rows (thousands under a high limit). Every hit row still in the table is
 * inside its key's window once the hit's own prune has run, so the count is the window's count.
 * Whoever deletes hits (a hit's prune, the retention sweep) keeps it right without knowing.
 */
export const rateLimitCounts = /* sql */ `
CREATE TABLE rate_limit_counts (
  key TEXT PRIMARY KEY,
  hits INTEGER NOT NULL CHECK (hits > 0)
) STRICT, WITHOUT ROWID;
INSERT INTO rate_limit_counts (key, hits)
  SELECT key, COUNT(*) FROM rate_limit_hits GROUP BY key;
CREATE TRIGGER rate_limit_hits_counted AFTER INSERT ON rate_limit_hits BEGIN
  INSERT INTO rate_limit_counts (key, hits) VALUES (NEW.key, 1)
    ON CONFLICT (key) DO UPDATE SET hits = hits + 1;
END;
CREATE TRIGGER rate_limit_hits_uncounted AFTER DELETE ON rate_limit_hits BEGIN
  DELETE FROM rate_limit_counts WHERE key = OLD.key AND hits = 1;
  UPDATE rate_limit_counts SET hits = hits - 1 WHERE key = OLD.key;
END;
`;
