/**
 * Nothing to change here: PostgreSQL's expiry index has held only messages still `sent` since
 * the initial schema. The version brings SQLite's index to the same shape.
 */
export const sentMessagesExpiry: readonly string[] = [];
