/**
 * Sending windows: a campaign's window (JSON, NULL for none), a profile's own time zone, and
 * when a held message is released. The due job reads messages still `scheduled` (and those a
 * process took for release, `releasing`) by release time, so each status has an index holding
 * only its messages.
 */
export const sendingWindows = /* sql */ `
ALTER TABLE campaigns ADD COLUMN sending_window TEXT;
ALTER TABLE profiles ADD COLUMN time_zone TEXT;
ALTER TABLE messages ADD COLUMN scheduled_for TEXT;
CREATE INDEX messages_scheduled ON messages (scheduled_for, id) WHERE status = 'scheduled';
CREATE INDEX messages_releasing ON messages (scheduled_for, id) WHERE status = 'releasing';
`;
