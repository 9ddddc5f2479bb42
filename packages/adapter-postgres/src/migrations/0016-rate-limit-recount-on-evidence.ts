import { rateLimitHitFunction } from "./rate-limit-hit.js";

/**
 * A refusal also counts a key's rows again, within the window version 13 trusts, when the kept
 * count plainly cannot be right: no hit row is left behind it (such a count would answer
 * refusals with nothing to wait for, `Retry-After: 0`, for the rest of the window), or its
 * last check is stamped later than this hit (another process's clock ahead, or a clock set
 * back, which would make a count be trusted for longer than a window). Everything else is
 * version 13's: `rate_limit_hit` keeps its signature and answers, so processes of the previous
 * version call the new one unchanged.
 */
export const rateLimitRecountOnEvidence: readonly string[] = [
  rateLimitHitFunction({
    create: "CREATE OR REPLACE",
    declarations: `     stored BIGINT;
     checked BIGINT;
`,
    counting: `     -- Every hit left is in the window, so the kept count is the window's. Hits after hit_at
     -- count too: a caller that read its clock later got the lock first.
     SELECT c.hits, c.checked_at INTO hits, checked
       FROM rate_limit_counts c WHERE c.key = hit_key;
     hits := coalesce(hits, 0);
     SELECT min(h.at) INTO oldest FROM rate_limit_hits h WHERE h.key = hit_key;
     -- A refusal whose key was not counted in this window counts its rows: a kept count above
     -- them would otherwise refuse the key for good. So does one whose count is plainly wrong
     -- (no row at all), or whose last check is later than this hit (another process's clock
     -- ahead, or a clock set back). The count is locked before the rows are counted, so a
     -- retention batch's decrement is either counted already or applied after, to the
     -- corrected row.
     IF hits >= hit_limit AND (checked IS NULL OR checked <= window_start OR checked > hit_at
         OR oldest IS NULL) THEN
       PERFORM 1 FROM rate_limit_counts c WHERE c.key = hit_key FOR UPDATE;
       SELECT count(*) INTO stored FROM rate_limit_hits h WHERE h.key = hit_key;
       IF stored = 0 THEN
         DELETE FROM rate_limit_counts c WHERE c.key = hit_key;
       ELSE
         INSERT INTO rate_limit_counts AS c (key, hits, checked_at) VALUES (hit_key, stored, hit_at)
           ON CONFLICT (key) DO UPDATE SET hits = EXCLUDED.hits, checked_at = EXCLUDED.checked_at;
       END IF;
       hits := stored;
     END IF;
`,
  }),
];
