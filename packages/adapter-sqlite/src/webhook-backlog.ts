import type { WebhookBacklog } from "@tidings/core";
import type { SqliteDatabase } from "./sqlite-database.js";

/**
 * How many pending webhook deliveries are due at `now` (ISO 8601), and the earliest due time
 * among them: one read on the partial index of pending deliveries (`deliveries_due`), cheap
 * enough for every metrics scrape.
 */
export function webhookBacklog(db: SqliteDatabase, now: string): WebhookBacklog {
  const row = db
    .prepare(
      "SELECT count(*) AS due, min(next_attempt_at) AS oldest FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ?",
    )
    .get(now) as { due?: unknown; oldest?: unknown } | undefined;
  const due = row?.due;
  const oldest = row?.oldest ?? null;
  if (typeof due !== "number" || !(oldest === null || typeof oldest === "string")) {
    throw new Error(`The webhook backlog read answered an unexpected row: ${JSON.stringify(row)}.`);
  }
  return { due, oldestDueAt: oldest };
}
