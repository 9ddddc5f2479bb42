import type { MessageRepository, MessageStatus } from "@tidings/core";
import { insertColumns, sqlTables, toJsonOrNull } from "@tidings/core/sql";
import { select as columns, fromBigint, records } from "../columns.js";
import { pageFilter } from "../newest-first.js";
import type { Sql } from "../sql.js";

/** Messages, their lifecycle compare-and-set, and their events. */
export function messageRepository(sql: Sql): MessageRepository {
  const t = sql.tables;
  const select = `SELECT ${columns.messages} FROM ${t.messages}`;
  const one = async (text: string, values: unknown[]) => {
    const rows = await sql.rows(text, values);
    return rows[0] === undefined ? null : records.message(rows[0]);
  };
  return {
    async listPage(q) {
      const { where, values, limitParam } = pageFilter(
        [
          ["organization_id = $?", q.organizationId],
          ["status = $?", q.status],
          ["campaign_id = $?", q.campaignId],
          ["client_reference = $?", q.clientReference],
          ["phone_number = $?", q.phoneNumber],
          ["created_at > $?", q.createdAfter],
          ["created_at < $?", q.createdBefore],
        ],
        q.beforeSeq,
        q.limit,
      );
      const rows = await sql.rows(
        `SELECT seq, ${columns.messages} FROM ${t.messages} WHERE ${where}
         ORDER BY seq DESC LIMIT ${limitParam}`,
        values,
      );
      return rows.map(records.sequenced("messages", records.message));
    },
    async insert(m) {
      await sql.rows(
        `INSERT INTO ${t.messages} (${insertColumns(sqlTables.messages)})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::text::jsonb,
           $16, $17, $18)`,
        [
          m.id,
          m.organizationId,
          m.apiKeyId,
          m.campaignId,
          m.profileId,
          m.phoneNumber,
          m.category,
          m.channel,
          m.smsFallbackAllowed,
          m.sender,
          m.body,
          m.clientReference,
          m.webhookUrl,
          m.status,
          toJsonOrNull(m.error),
          m.expiresAt,
          m.createdAt,
          m.updatedAt,
        ],
      );
    },
    get: (organizationId, id) =>
      one(`${select} WHERE id = $1 AND organization_id = $2`, [id, organizationId]),
    getById: (id) => one(`${select} WHERE id = $1`, [id]),
    async transition(id, expectedStatus, changes) {
      // One conditional UPDATE: of concurrent writers expecting the same status, one matches.
      const rows = await sql.rows(
        `UPDATE ${t.messages} SET status = $3, channel = $4, error = $5::text::jsonb,
           updated_at = $6
         WHERE id = $1 AND status = $2 RETURNING id`,
        [
          id,
          expectedStatus,
          changes.status,
          changes.channel,
          toJsonOrNull(changes.error),
          changes.updatedAt,
        ],
      );
      return rows.length === 1;
    },
    async listExpired(now, limit) {
      const rows = await sql.rows<{ id: string }>(
        `SELECT id FROM ${t.messages} WHERE status = 'sent' AND expires_at <= $1
         ORDER BY expires_at, id LIMIT $2`,
        [now, limit],
      );
      return rows.map((row) => row.id);
    },
    async insertEvent(e) {
      await sql.rows(
        `INSERT INTO ${t.messageEvents} (${insertColumns(sqlTables.messageEvents)})
         VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7)`,
        [
          e.id,
          e.organizationId,
          e.messageId,
          e.topic,
          e.channel,
          toJsonOrNull(e.error),
          e.createdAt,
        ],
      );
    },
    async listEvents(organizationId, messageId) {
      const rows = await sql.rows(
        `SELECT ${columns.messageEvents} FROM ${t.messageEvents}
         WHERE message_id = $1 AND organization_id = $2 ORDER BY created_at, id`,
        [messageId, organizationId],
      );
      return rows.map(records.messageEvent);
    },
    async countByHour(organizationId, since) {
      const rows = await sql.rows<{ hour: string; status: MessageStatus; count: unknown }>(
        `SELECT left(created_at, 13) AS hour, status, COUNT(*) AS count FROM ${t.messages}
         WHERE organization_id = $1 AND created_at >= $2 GROUP BY 1, 2`,
        [organizationId, since],
      );
      return rows.map((row) => ({
        hour: row.hour,
        status: row.status,
        count: fromBigint(row.count),
      }));
    },
  };
}
