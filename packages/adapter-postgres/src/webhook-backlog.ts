import type { WebhookBacklog } from "@tidings/core";
import type { PgQueryable } from "./pg-client.js";
import { tablesIn } from "./tables.js";

/**
 * How many pending webhook deliveries are due at `now` (ISO 8601), and the earliest due time
 * among them: one read on the partial index of pending deliveries (`deliveries_due`), cheap
 * enough for every metrics scrape. `schema` is where Tidings' tables live (default `public`).
 */
export async function webhookBacklog(
  db: PgQueryable,
  now: string,
  options: { schema?: string | undefined } = {},
): Promise<WebhookBacklog> {
  const deliveries = tablesIn(options.schema ?? "public").deliveries;
  const { rows } = await db.query(
    `SELECT count(*) AS due, min(next_attempt_at) AS oldest FROM ${deliveries} WHERE status = 'pending' AND next_attempt_at <= $1`,
    [now],
  );
  const row = rows[0] as { due?: unknown; oldest?: unknown } | undefined;
  // count(*) is a bigint, which pg hands over as text.
  const due = typeof row?.due === "string" ? Number(row.due) : row?.due;
  const oldest = row?.oldest ?? null;
  if (!Number.isSafeInteger(due) || !(oldest === null || typeof oldest === "string")) {
    throw new Error(`The webhook backlog read answered an unexpected row: ${JSON.stringify(row)}.`);
  }
  return { due: due as number, oldestDueAt: oldest };
}
