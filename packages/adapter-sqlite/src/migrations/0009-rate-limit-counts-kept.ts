/**
 * Nothing to change here: on PostgreSQL this version keeps a count of hits per rate-limit key,
 * which SQLite has kept since version 6.
 */
export const rateLimitCountsKept = "";
