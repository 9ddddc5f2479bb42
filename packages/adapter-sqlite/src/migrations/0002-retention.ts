/**
 * What the retention sweep walks: messages in creation order, and rate-limit hits by time
 * across every key (the existing index starts with the key, which a sweep does not know).
 */
export const retentionIndexes = /* sql */ `
CREATE INDEX messages_created ON messages (created_at, id);
CREATE INDEX rate_limit_hits_at ON rate_limit_hits (at);
`;
