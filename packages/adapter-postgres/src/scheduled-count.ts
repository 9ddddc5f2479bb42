import type { PgQueryable } from "./pg-client.js";
import { tablesIn } from "./tables.js";

/**
 * How many messages are held `scheduled` (for a sending window or `send_at`): one read on the
 * partial index of scheduled messages (`messages_scheduled`), cheap enough for every metrics
 * scrape. `schema` is where Tidings' tables live (default `public`).
 */
export async function scheduledMessageCount(
  db: PgQueryable,
  options: { schema?: string | undefined } = {},
): Promise<number> {
  const messages = tablesIn(options.schema ?? "public").messages;
  const { rows } = await db.query(
    `SELECT count(*) AS held FROM ${messages} WHERE status = 'scheduled'`,
  );
  const raw = (rows[0] as { held?: unknown } | undefined)?.held;
  // count(*) is a bigint, which pg hands over as text.
  const held = typeof raw === "string" ? Number(raw) : raw;
  if (!Number.isSafeInteger(held)) {
    throw new Error(`The scheduled count answered an unexpected row: ${JSON.stringify(rows[0])}.`);
  }
  return held as number;
}
