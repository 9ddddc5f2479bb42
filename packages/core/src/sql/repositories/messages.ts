import type { MessageRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

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
    recordLeg: (id, channel, { provider, providerMessageId }) =>
      access.map(
        messages.update(
          channel === "viber"
            ? { viberProvider: provider, viberProviderMessageId: providerMessageId }
            : { smsProvider: provider, smsProviderMessageId: providerMessageId },
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
    listEvents: (organizationId, messageId) =>
      events.many("message_id = ? AND organization_id = ? ORDER BY created_at, id", [
        messageId,
        organizationId,
      ]),
  };
}
