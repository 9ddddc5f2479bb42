import type { MessageRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/** A count or sum as either driver answers it: a number, or PostgreSQL's bigint as text. */
const counted = (value: unknown): number => Number(value);

/**
 * Messages, their lifecycle and the reads of their events, but what each database words its
 * own way: the expiry sweep's ids, the hourly counts, and an event stored with its deliveries.
 */
export function messageRows<A extends boolean>(
  access: SqlAccess<A>,
): Styled<
  Omit<MessageRepository, "listExpired" | "countByHour" | "countByChannel" | "insertEvent">,
  A
> {
  const messages = access.table("messages");
  const events = access.table("messageEvents");
  const prices = access.table("messagePrices");
  const pricesTable = access.tableName("messagePrices");
  const messagesTable = access.tableName("messages");
  return {
    insert: (message) => messages.insert(message),
    listPage: (query) => access.page("messages", query),
    get: (organizationId, id) =>
      messages.one("id = ? AND organization_id = ?", [id, organizationId]),
    getById: (id) => messages.one("id = ?", [id]),
    // One conditional UPDATE: of concurrent writers expecting the same status, one matches.
    transition: (id, expectedStatus, { status, channel, error, updatedAt }) =>
      access.map(
        messages.update({ status, channel, error, updatedAt }, "id = ? AND status = ?", [
          id,
          expectedStatus,
        ]),
        (moved) => moved === 1,
      ),
    // One conditional UPDATE that answers the row: of concurrent writers making the same
    // move, one matches. `IN (NULL)` matches no status, so an empty `from` writes nothing.
    advance: (id, from, { status, error, expiresAt, updatedAt }) =>
      messages.updateOne(
        { status, error, expiresAt, updatedAt },
        `id = ? AND status IN (${from.map(() => "?").join(", ") || "NULL"})`,
        [id, ...from],
      ),
    recordLeg: (id, channel, { provider, providerMessageId, notes = null }) =>
      access.map(
        messages.update(
          channel === "viber"
            ? {
                viberProvider: provider,
                viberProviderMessageId: providerMessageId,
                viberLegNotes: notes,
              }
            : {
                smsProvider: provider,
                smsProviderMessageId: providerMessageId,
                smsLegNotes: notes,
              },
          "id = ?",
          [id],
        ),
        (written) => written === 1,
      ),
    recordSentFrom: (id, sentFrom) =>
      access.map(
        messages.update(
          { smsSentFrom: sentFrom },
          "id = ? AND (sms_sent_from IS NULL OR sms_sent_from <> ?)",
          [id, sentFrom],
        ),
        (written) => written === 1,
      ),
    scheduleFallback: (id, dueAt, updatedAt) =>
      messages.updateOne(
        { channel: "sms", fallbackDueAt: dueAt, updatedAt },
        "id = ? AND status = 'sent' AND channel = 'viber' AND fallback_due_at IS NULL",
        [id],
      ),
    listFallbacksDue: (now, limit) =>
      access.map(
        messages.many(
          "fallback_due_at IS NOT NULL AND fallback_due_at <= ? ORDER BY fallback_due_at, id LIMIT ?",
          [now, limit],
        ),
        (due) => due.map((message) => message.id),
      ),
    // Served by the partial index of each status (`messages_scheduled`, `messages_releasing`),
    // which SQLite uses only when the query names the status literally, as the index does.
    listScheduledDue: (status, now, limit) =>
      access.map(
        messages.many(
          `status = '${status === "scheduled" ? "scheduled" : "releasing"}' ` +
            "AND scheduled_for <= ? ORDER BY scheduled_for, id LIMIT ?",
          [now, limit],
        ),
        (due) => due.map((message) => message.id),
      ),
    moveFallback: (id, from, to) =>
      access.map(
        messages.update({ fallbackDueAt: to }, "id = ? AND fallback_due_at = ?", [id, from]),
        (moved) => moved === 1,
      ),
    // Grouped by a literal length (an integer of the caller's), so both databases group by the
    // select list's first column; served by the organization's index on creation time.
    countByPrefix: (organizationId, since, length) =>
      access.map(
        access.select(
          `SELECT substr(phone_number, 1, ${Math.max(1, Math.trunc(length))}) AS prefix, ` +
            `min(phone_number) AS sample, count(*) AS n FROM ${messagesTable} WHERE organization_id = ? AND created_at >= ? ` +
            "GROUP BY 1",
          [organizationId, since],
        ),
        (rows) =>
          (rows as Array<{ prefix: string | null; sample: string | null; n: unknown }>).map(
            (row) => ({
              prefix: row.prefix ?? "",
              sample: row.sample ?? "",
              count: counted(row.n),
            }),
          ),
      ),
    // One statement: the first price of a leg is kept, and a zero (which a provider may report
    // before it knows) gives way to a real one; a repeat writes nothing, so it is counted once.
    recordPrice: (price) =>
      access.map(
        access.select(
          `INSERT INTO ${pricesTable} AS p (message_id, organization_id, channel, provider, ` +
            "amount_micros, currency, country, reported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) " +
            "ON CONFLICT (message_id, channel) DO UPDATE SET provider = excluded.provider, " +
            "amount_micros = excluded.amount_micros, currency = excluded.currency, " +
            "country = excluded.country, reported_at = excluded.reported_at " +
            "WHERE p.amount_micros = 0 AND excluded.amount_micros > 0 RETURNING 1",
          [
            price.messageId,
            price.organizationId,
            price.channel,
            price.provider,
            price.amountMicros,
            price.currency,
            price.country,
            price.reportedAt,
          ],
        ),
        (rows) => rows.length === 1,
      ),
    listPrices: (organizationId, messageIds) =>
      prices.many(
        `organization_id = ? AND message_id IN (${messageIds.map(() => "?").join(", ") || "NULL"})`,
        [organizationId, ...messageIds],
      ),
    spendByCountry: (organizationId, since) =>
      access.map(
        access.select(
          "SELECT country, currency, sum(amount_micros) AS micros, count(*) AS legs " +
            `FROM ${pricesTable} WHERE organization_id = ? AND reported_at >= ? ` +
            "GROUP BY country, currency",
          [organizationId, since],
        ),
        (rows) =>
          (
            rows as Array<{
              country: string | null;
              currency: string;
              micros: unknown;
              legs: unknown;
            }>
          ).map((row) => ({
            country: row.country,
            currency: row.currency,
            amountMicros: counted(row.micros),
            legs: counted(row.legs),
          })),
      ),
    listEvents: (organizationId, messageId) =>
      events.many("message_id = ? AND organization_id = ? ORDER BY created_at, id", [
        messageId,
        organizationId,
      ]),
  };
}
