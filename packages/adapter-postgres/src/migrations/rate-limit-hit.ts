/**
 * The `rate_limit_hit` function's text as versions 6, 9, 13 and 16 write it: every version keeps
 * the signature, the key's lock, the prune and the answer, and changes only how the window's
 * hits are counted. Each version's statement is built from these parts, and the parts are the
 * text those versions were released with, character for character (migrations.test.ts pins
 * every released migration's text): a released migration must not change what it runs.
 */

/** The signature and answer, unchanged since version 6: processes of every version call it. */
const signature = `FUNCTION rate_limit_hit(
     lock_space TEXT, hit_key TEXT, window_start BIGINT, hit_at BIGINT, hit_limit BIGINT,
     commit_async BOOLEAN)
   RETURNS TABLE (hits BIGINT, oldest BIGINT, leaving BIGINT)
   LANGUAGE plpgsql VOLATILE
   SET search_path FROM CURRENT
   AS $$
   DECLARE
     in_window BIGINT;
`;

/** The key's lock, the transaction's durability and the prune of hits that left the window. */
const lockAndPrune = `   BEGIN
     PERFORM pg_advisory_xact_lock(hashtext(lock_space), hashtext(hit_key));
     IF commit_async THEN
       PERFORM set_config('synchronous_commit', 'off', true);
     END IF;
     DELETE FROM rate_limit_hits h WHERE h.key = hit_key AND h.at <= window_start;
`;

/** With `hits` and `oldest` found: this hit added when it fits, and when the next slot opens. */
const addAndAnswer = `     in_window := hits;
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
   $$`;

/** How one version writes the function: what it declares besides `in_window`, and how it
 * finds `hits` and `oldest` after the prune. */
export interface RateLimitHitCounting {
  create: "CREATE" | "CREATE OR REPLACE";
  /** Further variables, one `     name TYPE;` line each. */
  declarations: string;
  /** Statements that set `hits` (the window's hits before this one) and `oldest`. */
  counting: string;
  /** The key's lock, the durability and the prune, when not the ones of versions 6 to 16. */
  lockAndPrune?: string;
}

/** The statement that creates (or replaces) `rate_limit_hit` counting the hits as `counting` says. */
export const rateLimitHitFunction = ({
  create,
  declarations,
  counting,
  lockAndPrune: prune = lockAndPrune,
}: RateLimitHitCounting): string =>
  `${create} ${signature}${declarations}${prune}${counting}${addAndAnswer}`;

/** What a version that keeps `checked_at` (13, 16) declares beside the signature's variables. */
export const recountDeclarations = `     stored BIGINT;
     checked BIGINT;
`;

/** How versions 13 and 16 read the kept count, its last check and the oldest hit. */
export const keptCountRead = `     -- Every hit left is in the window, so the kept count is the window's. Hits after hit_at
     -- count too: a caller that read its clock later got the lock first.
     SELECT c.hits, c.checked_at INTO hits, checked
       FROM rate_limit_counts c WHERE c.key = hit_key;
     hits := coalesce(hits, 0);
     SELECT min(h.at) INTO oldest FROM rate_limit_hits h WHERE h.key = hit_key;
`;

/** How versions 13 and 16 count a key's rows again, once they decided to, and end the IF. */
export const recount = `       PERFORM 1 FROM rate_limit_counts c WHERE c.key = hit_key FOR UPDATE;
       SELECT count(*) INTO stored FROM rate_limit_hits h WHERE h.key = hit_key;
       IF stored = 0 THEN
         DELETE FROM rate_limit_counts c WHERE c.key = hit_key;
       ELSE
         INSERT INTO rate_limit_counts AS c (key, hits, checked_at) VALUES (hit_key, stored, hit_at)
           ON CONFLICT (key) DO UPDATE SET hits = EXCLUDED.hits, checked_at = EXCLUDED.checked_at;
       END IF;
       hits := stored;
     END IF;
`;
