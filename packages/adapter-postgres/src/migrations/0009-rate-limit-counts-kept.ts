import { rateLimitHitFunction } from "./rate-limit-hit.js";

/**
 * How many hits each rate-limit key holds, kept by triggers, so a hit reads one row instead of
 * counting the window's rows: under a high limit that count walked hundreds of index entries, and
 * as many dead ones again until vacuum, and cost the server more than the rest of a send's
 * statements together. Every hit row still in the table is inside its key's window once the
 * hit's own prune has run, so the kept count is the window's count. Whoever deletes hits (a
 * hit's prune, the retention sweep, a TRUNCATE) keeps it right without knowing, as long as the
 * triggers run. A count above the key's rows would refuse the key for good, so a refusal counts
 * the rows and puts the kept count right (at most `limit` rows, and only when refusing).
 *
 * The table is locked before the existing hits are counted, so no hit can land between the count
 * and the triggers. `rate_limit_hit` keeps its signature and answers: processes of the previous
 * version call the new one unchanged. Each statement of a volatile function reads a fresh
 * snapshot in READ COMMITTED, so the kept count, read after the key's lock and the prune, holds
 * every hit committed before it.
 */
export const rateLimitCountsKept: readonly string[] = [
  "LOCK TABLE rate_limit_hits IN SHARE ROW EXCLUSIVE MODE",
  `CREATE TABLE rate_limit_counts (
     key TEXT COLLATE "C" PRIMARY KEY,
     hits BIGINT NOT NULL CHECK (hits > 0)
   )`,
  `INSERT INTO rate_limit_counts (key, hits)
     SELECT key, count(*) FROM rate_limit_hits GROUP BY key`,
  `CREATE FUNCTION rate_limit_hit_counted() RETURNS trigger
   LANGUAGE plpgsql
   SET search_path FROM CURRENT
   AS $$
   BEGIN
     INSERT INTO rate_limit_counts AS c (key, hits) VALUES (NEW.key, 1)
       ON CONFLICT (key) DO UPDATE SET hits = c.hits + 1;
     RETURN NULL;
   END
   $$`,
  `CREATE TRIGGER rate_limit_hit_counted AFTER INSERT ON rate_limit_hits
   FOR EACH ROW EXECUTE FUNCTION rate_limit_hit_counted()`,
  // Once per statement, not per row: a retention batch's deletes are counted in one go, and
  // the counts it changes are locked in key order first, so two batches of different
  // processes, which delete different rows of the same keys, wait for each other instead of
  // deadlocking. A hit's prune holds no count while it waits for rows a batch locked.
  `CREATE FUNCTION rate_limit_hits_uncounted() RETURNS trigger
   LANGUAGE plpgsql
   SET search_path FROM CURRENT
   AS $$
   BEGIN
     IF NOT EXISTS (SELECT 1 FROM gone) THEN
       RETURN NULL;
     END IF;
     PERFORM 1 FROM rate_limit_counts c WHERE c.key IN (SELECT g.key FROM gone g)
       ORDER BY c.key FOR UPDATE;
     -- The counts are locked, so both parts read the same values and change disjoint rows.
     WITH n AS (SELECT g.key, count(*) AS n FROM gone g GROUP BY g.key),
       emptied AS (
         DELETE FROM rate_limit_counts c USING n WHERE c.key = n.key AND c.hits <= n.n)
     UPDATE rate_limit_counts c SET hits = c.hits - n.n FROM n
       WHERE c.key = n.key AND c.hits > n.n;
     RETURN NULL;
   END
   $$`,
  `CREATE TRIGGER rate_limit_hits_uncounted AFTER DELETE ON rate_limit_hits
   REFERENCING OLD TABLE AS gone
   FOR EACH STATEMENT EXECUTE FUNCTION rate_limit_hits_uncounted()`,
  `CREATE FUNCTION rate_limit_hits_emptied() RETURNS trigger
   LANGUAGE plpgsql
   SET search_path FROM CURRENT
   AS $$
   BEGIN
     DELETE FROM rate_limit_counts;
     RETURN NULL;
   END
   $$`,
  `CREATE TRIGGER rate_limit_hits_emptied AFTER TRUNCATE ON rate_limit_hits
   FOR EACH STATEMENT EXECUTE FUNCTION rate_limit_hits_emptied()`,
  rateLimitHitFunction({
    create: "CREATE OR REPLACE",
    declarations: `     stored BIGINT;
`,
    counting: `     -- Every hit left is in the window, so the kept count is the window's. Hits after hit_at
     -- count too: a caller that read its clock later got the lock first.
     SELECT coalesce((SELECT c.hits FROM rate_limit_counts c WHERE c.key = hit_key), 0),
            (SELECT min(h.at) FROM rate_limit_hits h WHERE h.key = hit_key)
       INTO hits, oldest;
     -- A refusal counts the key's rows: a kept count above them (hits deleted with triggers
     -- off, a restore of the counts over counted hits) would otherwise refuse the key for good.
     -- The count is locked before the rows are counted, so a retention batch's decrement is
     -- either counted already or applied after, to the corrected row.
     IF hits >= hit_limit THEN
       SELECT c.hits INTO hits FROM rate_limit_counts c WHERE c.key = hit_key FOR UPDATE;
       hits := coalesce(hits, 0);
       SELECT count(*) INTO stored FROM rate_limit_hits h WHERE h.key = hit_key;
       IF stored <> hits THEN
         IF stored = 0 THEN
           DELETE FROM rate_limit_counts c WHERE c.key = hit_key;
         ELSE
           INSERT INTO rate_limit_counts AS c (key, hits) VALUES (hit_key, stored)
             ON CONFLICT (key) DO UPDATE SET hits = EXCLUDED.hits;
         END IF;
         hits := stored;
       END IF;
     END IF;
`,
  }),
];
