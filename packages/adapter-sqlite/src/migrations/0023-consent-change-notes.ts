/**
 * Why a consent change was made, where someone said: the note of a suppression added, and the
 * note a lifted suppression needs, kept in the history beside the change. Erasure clears it.
 */
export const consentChangeNotes = /* sql */ `
ALTER TABLE consent_changes ADD COLUMN note TEXT;
`;
