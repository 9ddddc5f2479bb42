/**
 * Nothing to change here: on PostgreSQL this version makes a refusal count a key's rows again
 * when its kept count plainly cannot be right. SQLite's kept count (version 6) is kept by row
 * triggers that every delete runs, and a hit never counts the rows.
 */
export const rateLimitRecountOnEvidence = "";
