import {
  keptCountRead,
  rateLimitHitFunction,
  recount,
  recountDeclarations,
} from "./rate-limit-hit.js";

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
    declarations: recountDeclarations,
    counting: `${keptCountRead}     -- A refusal whose key was not counted in this window counts its rows: a kept count above
     -- them would otherwise refuse the key for good. So does one whose count is plainly wrong
     -- (no row at all), or whose last check is later than this hit (another process's clock
     -- ahead, or a clock set back). The count is locked before the rows are counted, so a
     -- retention batch's decrement is either counted already or applied after, to the
     -- corrected row.
     IF hits >= hit_limit AND (checked IS NULL OR checked <= window_start OR checked > hit_at
         OR oldest IS NULL) THEN
${recount}`,
  }),
];
