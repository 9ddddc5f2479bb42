/**
 * The expiry sweep reads only messages still `sent`, so its index holds only those, as it does
 * on PostgreSQL: a message leaves it when its first report arrives, and its later status
 * changes (seen, clicked) touch one index fewer. With the status in the key, every change moved
 * the message inside the index; per send that was three of the reports' index writes.
 */
export const sentMessagesExpiry = /* sql */ `
DROP INDEX messages_expiry;
CREATE INDEX messages_expiry ON messages (expires_at, id) WHERE status = 'sent';
`;
