/**
 * What the hand-off of each leg of a message noted besides its provider (JSON, null when
 * nothing): the providers of a failover list it went past and why, and the TTL its provider
 * clamped the asked one to. Written with the leg, in the same statement.
 */
export const messageLegNotes = /* sql */ `
ALTER TABLE messages ADD COLUMN viber_leg_notes TEXT;
ALTER TABLE messages ADD COLUMN sms_leg_notes TEXT;
`;
