/**
 * Nothing to change here: on PostgreSQL this version counts a refused key's rows at most once
 * per window. SQLite's kept count (version 6) is kept by row triggers that every delete runs,
 * and a hit never counts the rows.
 */
export const rateLimitRecountOnce = "";
