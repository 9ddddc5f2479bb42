import {
  keptCountRead,
  rateLimitHitFunction,
  recount,
  recountDeclarations,
} from "./rate-limit-hit.js";

/**
 * A refusal counts a key's rows at most once per window. Version 9 counted them at every
 * refusal, to put right a kept count above the rows; a client flooding a key past its limit
 * so paid a count of up to `limit` rows, and the dead ones beside them, at each refused
 * request, with the key's lock held. The count now records when its rows were last counted
 * (`checked_at`, in the hits' milliseconds), and a refusal counts them again only when that
 * was at or before the window's open edge: a wrong count is put right within one window, as
 * every hit it wrongly holds would have left by then, and a refusal inside a window that was
 * checked reads one row, as an allowed hit does.
 *
 * Nothing but a repair changes `checked_at`: the triggers that keep the count leave it alone,
 * and a count that falls to zero goes with its row. `rate_limit_hit` keeps its signature and
 * answers, so processes of the previous version call the new one unchanged, and the limit
 * stays exact across processes: the count the triggers keep is the window's count, and only a
 * count put wrong from outside (hits deleted with triggers off) waits up to a window for its
 * repair.
 */
export const rateLimitRecountOnce: readonly string[] = [
  "ALTER TABLE rate_limit_counts ADD COLUMN checked_at BIGINT",
  rateLimitHitFunction({
    create: "CREATE OR REPLACE",
    declarations: recountDeclarations,
    counting: `${keptCountRead}     -- A refusal whose key was not counted in this window counts its rows: a kept count above
     -- them would otherwise refuse the key for good. The count is locked before the rows are
     -- counted, so a retention batch's decrement is either counted already or applied after,
     -- to the corrected row.
     IF hits >= hit_limit AND (checked IS NULL OR checked <= window_start) THEN
${recount}`,
  }),
];
