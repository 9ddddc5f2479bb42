import type { SqliteDatabase } from "./sqlite-database.js";

/**
 * How many messages are held `scheduled` (for a sending window or `send_at`): one read on the
 * partial index of scheduled messages (`messages_scheduled`), cheap enough for every metrics
 * scrape.
 */
export function scheduledMessageCount(db: SqliteDatabase): number {
  const row = db
    .prepare("SELECT count(*) AS held FROM messages WHERE status = 'scheduled'")
    .get() as { held?: unknown } | undefined;
  if (typeof row?.held !== "number") {
    throw new Error(`The scheduled count answered an unexpected row: ${JSON.stringify(row)}.`);
  }
  return row.held;
}
