/**
 * Nothing to change here: on PostgreSQL this version makes every change to a campaign announce
 * itself, so processes that keep campaigns in memory forget them at once. SQLite reads a
 * campaign from the file in a few microseconds, and nothing keeps one in memory.
 */
export const campaignChangeNotices = "";
