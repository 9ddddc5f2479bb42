/**
 * Nothing to change here: on PostgreSQL this version makes a send's counting statements skip
 * the key's deleted hits and take a country's total without its lock. SQLite runs one writer
 * at a time, and its counts are kept by row triggers.
 */
export const sendHitShorter = "";
