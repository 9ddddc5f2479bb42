/**
 * Nothing to change here: on PostgreSQL this version makes every change to an API key announce
 * itself, so processes that keep verified keys in memory forget them at once. SQLite reads a
 * key from the file in a few microseconds, and nothing keeps one in memory.
 */
export const apiKeyChangeNotices = "";
