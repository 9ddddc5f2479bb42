/**
 * The index on messages by number and sender goes: the ownership of an inbound message is
 * found through each organization's index of its messages by number instead, so no send
 * maintains an index for the rare inbound reply.
 */
export const sendPathCosts = /* sql */ `
DROP INDEX messages_phone_sender;
`;
