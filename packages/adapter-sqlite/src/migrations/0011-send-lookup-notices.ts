/**
 * Nothing to change here: on PostgreSQL this version makes every change to a campaign or a
 * webhook subscription announce itself, so processes that keep them in memory forget them at
 * once. SQLite reads them from the file in a few microseconds, and nothing keeps them in memory.
 */
export const sendLookupNotices = "";
