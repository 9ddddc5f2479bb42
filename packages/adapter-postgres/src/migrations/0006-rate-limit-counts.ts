import { rateLimitHitFunction } from "./rate-limit-hit.js";

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
  rateLimitHitFunction({
    create: "CREATE",
    declarations: "",
    counting: `     SELECT count(*), min(h.at) INTO hits, oldest
       FROM rate_limit_hits h WHERE h.key = hit_key AND h.at > window_start;
`,
  }),
];
