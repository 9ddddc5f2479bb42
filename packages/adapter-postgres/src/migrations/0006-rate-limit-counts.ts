/**
 * A rate-limit hit as one function: it takes the key's lock, prunes the hits that left the
 * window, counts the rest, adds this hit when it fits and finds when the next slot opens. One
 * call is one round trip, where the statements one by one took four (BEGIN, the lock, the
 * count, COMMIT), all with the key's lock held. In READ COMMITTED each statement of a volatile
 * function reads a fresh snapshot, so the count, taken after the lock, sees every hit committed
 * before it, as the separate statements did. The function runs with the schema it was created
 * in as its search path. (The version's name comes from the shared history, where SQLite keeps
 * a count per key. Here the function counted the window's rows until version 9, which keeps a
 * count per key here too.)
 */
export const rateLimitCounts: readonly string[] = [
  `CREATE FUNCTION rate_limit_hit(
     lock_space TEXT, hit_key TEXT, window_start BIGINT, hit_at BIGINT, hit_limit BIGINT,
     commit_async BOOLEAN)
   RETURNS TABLE (hits BIGINT, oldest BIGINT, leaving BIGINT)
   LANGUAGE plpgsql VOLATILE
   SET search_path FROM CURRENT
   AS $$
   DECLARE
     in_window BIGINT;
   BEGIN
     PERFORM pg_advisory_xact_lock(hashtext(lock_space), hashtext(hit_key));
     IF commit_async THEN
       PERFORM set_config('synchronous_commit', 'off', true);
     END IF;
     DELETE FROM rate_limit_hits h WHERE h.key = hit_key AND h.at <= window_start;
     SELECT count(*), min(h.at) INTO hits, oldest
       FROM rate_limit_hits h WHERE h.key = hit_key AND h.at > window_start;
     in_window := hits;
     IF hits < hit_limit THEN
       INSERT INTO rate_limit_hits (key, at) VALUES (hit_key, hit_at);
       in_window := hits + 1;
     END IF;
     IF in_window > hit_limit THEN
       SELECT h.at INTO leaving FROM rate_limit_hits h
         WHERE h.key = hit_key AND h.at > window_start
         ORDER BY h.at OFFSET in_window - hit_limit LIMIT 1;
     END IF;
     RETURN NEXT;
   END
   $$`,
];
