/**
 * Where an organization knows a suppressed number: the profile that had it and the inbound
 * message that asked for the suppression, so a list shows the number while either still holds
 * it, with no hash of every profile. Erasure clears both.
 */
export const suppressionKnownNumbers = /* sql */ `
ALTER TABLE suppressions ADD COLUMN profile_id TEXT;
ALTER TABLE suppressions ADD COLUMN inbound_id TEXT;
`;
