import { rateLimitHitFunction, recount, recountDeclarations } from "./rate-limit-hit.js";

/**
 * A send's counting, cheaper and held for less time on PostgreSQL.
 *
 * - `rate_limit_hit` no longer walks a key's deleted hits. Each prune deletes the hits before
 *   the window, so a busy key's index range starts with entries of rows already deleted, which
 *   only VACUUM takes away; the prune and the oldest-hit read scanned them on every hit, a cost
 *   that grew until the next VACUUM (and without autovacuum, for good). A key's kept count now
 *   also keeps `low_at`, below which none of its hits is left: a hit lowers it to just before
 *   its own time, a prune raises it to the window's start. The prune reads only above it and
 *   the oldest hit only inside the window, so both skip the deleted entries.
 * - `send_hit` locks only the sliding windows' counters. A total (a country's day) is counted
 *   by one conditional upsert after the key's hit, under the total's row lock, so no send waits
 *   on a country's lock while the rest of another send's checks run. A total found full there
 *   (filled by another send since it was read) takes the key's hit back, so a refusal by a
 *   destination limit still counts nothing. Everything else is version 18's: the signatures and
 *   answers are unchanged, so processes of the previous version call the new functions.
 */
export const sendHitShorter: readonly string[] = [
  `ALTER TABLE rate_limit_counts ADD COLUMN low_at BIGINT`,
  `CREATE OR REPLACE FUNCTION rate_limit_hit_counted() RETURNS trigger
   LANGUAGE plpgsql
   SET search_path FROM CURRENT
   AS $$
   BEGIN
     INSERT INTO rate_limit_counts AS c (key, hits, low_at) VALUES (NEW.key, 1, NEW.at - 1)
       ON CONFLICT (key) DO UPDATE SET hits = c.hits + 1, low_at = least(c.low_at, NEW.at - 1);
     RETURN NULL;
   END
   $$`,
  rateLimitHitFunction({
    create: "CREATE OR REPLACE",
    declarations: recountDeclarations,
    // The prune starts above `low_at`, past the entries of hits deleted before.
    lockAndPrune: `   BEGIN
     PERFORM pg_advisory_xact_lock(hashtext(lock_space), hashtext(hit_key));
     IF commit_async THEN
       PERFORM set_config('synchronous_commit', 'off', true);
     END IF;
     DELETE FROM rate_limit_hits h WHERE h.key = hit_key AND h.at <= window_start
       AND h.at > coalesce((SELECT c.low_at FROM rate_limit_counts c WHERE c.key = hit_key),
         -9223372036854775808);
`,
    // Version 16's counting, with `low_at` raised to the window's start as the count is read,
    // and the oldest hit sought inside the window.
    counting: `     UPDATE rate_limit_counts c SET low_at = greatest(c.low_at, window_start)
       WHERE c.key = hit_key RETURNING c.hits, c.checked_at INTO hits, checked;
     hits := coalesce(hits, 0);
     SELECT min(h.at) INTO oldest FROM rate_limit_hits h
       WHERE h.key = hit_key AND h.at > window_start;
     IF hits >= hit_limit AND (checked IS NULL OR checked <= window_start OR checked > hit_at
         OR oldest IS NULL) THEN
${recount}`,
  }),
  `CREATE OR REPLACE FUNCTION send_hit(
     lock_space TEXT, hit_key TEXT, window_start BIGINT, hit_at BIGINT, hit_limit BIGINT,
     commit_async BOOLEAN, counters TEXT)
   RETURNS TABLE (refused_by INTEGER, wait_ms BIGINT, hits BIGINT, oldest BIGINT, leaving BIGINT)
   LANGUAGE plpgsql VOLATILE
   SET search_path FROM CURRENT
   AS $$
   DECLARE
     list JSONB := counters::jsonb;
     c JSONB;
     i INTEGER := 0;
     n BIGINT;
     total_until BIGINT;
     wait BIGINT;
     w JSONB;
     gone BIGINT;
     total_keys TEXT[];
     total_limits BIGINT[];
     total_untils BIGINT[];
     total_at INTEGER[];
   BEGIN
     IF commit_async THEN
       PERFORM set_config('synchronous_commit', 'off', true);
     END IF;
     PERFORM pg_advisory_xact_lock(hashtext(lock_space || ':destinations'), hashtext(k))
       FROM (SELECT DISTINCT e->>'k' AS k FROM jsonb_array_elements(list) e WHERE e ? 'w') keys
       ORDER BY hashtext(k), k;
     FOR c IN SELECT value FROM jsonb_array_elements(list) LOOP
       wait := NULL;
       IF c ? 'w' THEN
         DELETE FROM destination_hits d WHERE d.key = c->>'k'
           AND d.at <= hit_at - (SELECT max((x->>0)::bigint) FROM jsonb_array_elements(c->'w') x);
         FOR w IN SELECT value FROM jsonb_array_elements(c->'w') LOOP
           SELECT count(*) INTO n FROM destination_hits d
             WHERE d.key = c->>'k' AND d.at > hit_at - (w->>0)::bigint;
           IF n >= (w->>1)::bigint THEN
             SELECT d.at INTO gone FROM destination_hits d
               WHERE d.key = c->>'k' AND d.at > hit_at - (w->>0)::bigint
               ORDER BY d.at OFFSET n - (w->>1)::bigint LIMIT 1;
             wait := greatest(coalesce(wait, 0),
               greatest(1, coalesce(gone, hit_at) + (w->>0)::bigint - hit_at));
           END IF;
         END LOOP;
       ELSE
         total_keys := total_keys || (c->>'k');
         total_limits := total_limits || (c->'t'->>0)::bigint;
         total_untils := total_untils || (c->'t'->>1)::bigint;
         total_at := total_at || i;
         SELECT t.n, t.until INTO n, total_until FROM destination_totals t WHERE t.key = c->>'k';
         IF total_until > hit_at AND n >= (c->'t'->>0)::bigint THEN
           wait := total_until - hit_at;
         END IF;
       END IF;
       IF wait IS NOT NULL THEN
         refused_by := i;
         wait_ms := wait;
         RETURN NEXT;
         RETURN;
       END IF;
       i := i + 1;
     END LOOP;
     SELECT r.hits, r.oldest, r.leaving INTO hits, oldest, leaving
       FROM rate_limit_hit(lock_space, hit_key, window_start, hit_at, hit_limit, commit_async) r;
     IF hits >= hit_limit THEN
       RETURN NEXT;
       RETURN;
     END IF;
     FOR j IN 1 .. coalesce(array_length(total_keys, 1), 0) LOOP
       INSERT INTO destination_totals AS t (key, n, until)
         VALUES (total_keys[j], 1, total_untils[j])
         ON CONFLICT (key) DO UPDATE SET
           n = CASE WHEN t.until > hit_at THEN t.n + 1 ELSE 1 END,
           until = EXCLUDED.until
         WHERE t.until <= hit_at OR t.n < total_limits[j];
       IF NOT FOUND THEN
         DELETE FROM rate_limit_hits h WHERE h.seq = (SELECT h2.seq FROM rate_limit_hits h2
           WHERE h2.key = hit_key AND h2.at = hit_at ORDER BY h2.seq DESC LIMIT 1);
         UPDATE destination_totals t SET n = t.n - 1
           WHERE t.key = ANY (total_keys[1 : j - 1]);
         SELECT t.until INTO total_until FROM destination_totals t WHERE t.key = total_keys[j];
         refused_by := total_at[j];
         wait_ms := greatest(1, total_until - hit_at);
         hits := NULL;
         oldest := NULL;
         leaving := NULL;
         RETURN NEXT;
         RETURN;
       END IF;
     END LOOP;
     INSERT INTO destination_hits (key, at)
       SELECT e->>'k', hit_at FROM jsonb_array_elements(list) e WHERE e ? 'w';
     RETURN NEXT;
   END
   $$`,
];
