import type { MessageHourCount, MessageRepository } from "@tidings/core";
import { insertColumns, sqlTables, toJsonOrNull } from "@tidings/core/sql";
import { records, select, toFlag } from "../columns.js";
import { pageFilter } from "../newest-first.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** Messages, their compare-and-set lifecycle, and their lifecycle events. */
export function messageRepository(sql: Sql): SyncOf<MessageRepository> {
  const one = (row: unknown) => (row === undefined ? null : records.message(row));
  return {
    listPage(query) {
      const { where, params } = pageFilter(
        [
          ["organization_id = @organizationId", "organizationId", query.organizationId],
          ["status = @status", "status", query.status],
          ["campaign_id = @campaignId", "campaignId", query.campaignId],
          ["client_reference = @clientReference", "clientReference", query.clientReference],
          ["phone_number = @phoneNumber", "phoneNumber", query.phoneNumber],
          ["created_at > @createdAfter", "createdAfter", query.createdAfter],
          ["created_at < @createdBefore", "createdBefore", query.createdBefore],
        ],
        query.beforeSeq,
      );
      const rows = sql(
        `SELECT seq, ${select.messages} FROM messages WHERE ${where}
         ORDER BY seq DESC LIMIT @limit`,
      ).all({ ...params, limit: query.limit });
      return rows.map(records.sequenced("messages", records.message));
    },
    insert(message) {
      sql(
        `INSERT INTO messages (${insertColumns(sqlTables.messages)})
         VALUES (@id, @organizationId, @apiKeyId, @campaignId, @profileId, @phoneNumber,
           @category, @channel, @smsFallbackAllowed, @sender, @body, @clientReference,
           @webhookUrl, @status, @error, @expiresAt, @createdAt, @updatedAt)`,
      ).run({
        ...message,
        smsFallbackAllowed: toFlag(message.smsFallbackAllowed),
        error: toJsonOrNull(message.error),
      });
    },
    get(organizationId, id) {
      return one(
        sql(`SELECT ${select.messages} FROM messages WHERE id = ? AND organization_id = ?`).get(
          id,
          organizationId,
        ),
      );
    },
    getById(id) {
      return one(sql(`SELECT ${select.messages} FROM messages WHERE id = ?`).get(id));
    },
    transition(id, expectedStatus, changes) {
      const result = sql(
        `UPDATE messages SET status = @status, channel = @channel, error = @error,
           updated_at = @updatedAt
         WHERE id = @id AND status = @expectedStatus`,
      ).run({
        id,
        expectedStatus,
        status: changes.status,
        channel: changes.channel,
        error: toJsonOrNull(changes.error),
        updatedAt: changes.updatedAt,
      });
      return result.changes === 1;
    },
    listExpired(now, limit) {
      const rows = sql(
        `SELECT id FROM messages WHERE status = 'sent' AND expires_at <= ?
         ORDER BY expires_at, id LIMIT ?`,
      ).all(now, limit) as Array<{ id: string }>;
      return rows.map((row) => row.id);
    },
    insertEvent(event) {
      sql(
        `INSERT INTO message_events (${insertColumns(sqlTables.messageEvents)})
         VALUES (@id, @organizationId, @messageId, @topic, @channel, @error, @createdAt)`,
      ).run({ ...event, error: toJsonOrNull(event.error) });
    },
    listEvents(organizationId, messageId) {
      const rows = sql(
        `SELECT ${select.messageEvents} FROM message_events
         WHERE message_id = ? AND organization_id = ? ORDER BY created_at, id`,
      ).all(messageId, organizationId);
      return rows.map(records.messageEvent);
    },
    countByHour(organizationId, since) {
      return sql(
        `SELECT substr(created_at, 1, 13) AS hour, status, COUNT(*) AS count FROM messages
         WHERE organization_id = ? AND created_at >= ? GROUP BY hour, status`,
      ).all(organizationId, since) as MessageHourCount[];
    },
  };
}
