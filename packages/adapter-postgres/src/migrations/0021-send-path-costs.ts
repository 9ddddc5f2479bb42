/**
 * What a send writes, made smaller. The key's rate-limit hits and their kept counts move to
 * UNLOGGED tables, as the destination counters already are (version 18): they write no WAL,
 * and a crash (or a failover to a replica, which never had them) empties them, which only
 * lets each key make up to its limit again at once. And the index on messages by number and
 * sender goes: the ownership of an inbound message is found through each organization's index
 * of its messages by number instead, so no send maintains an index for the rare inbound reply.
 */
export const sendPathCosts: readonly string[] = [
  "ALTER TABLE rate_limit_hits SET UNLOGGED",
  "ALTER TABLE rate_limit_counts SET UNLOGGED",
  "DROP INDEX messages_phone_sender",
];
