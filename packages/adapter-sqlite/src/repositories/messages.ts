import type {
  Category,
  Channel,
  MessageError,
  MessageEventRecord,
  MessageRecord,
  MessageRepository,
  MessageStatus,
  Topic,
} from "@tidings/core";
import { fromFlag, fromJsonOrNull, toFlag, toJsonOrNull } from "../columns.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

export interface MessageRow {
  id: string;
  organization_id: string;
  api_key_id: string;
  campaign_id: string;
  profile_id: string;
  phone_number: string;
  category: string;
  channel: string;
  sms_fallback_allowed: number;
  sender: string;
  body: string;
  client_reference: string | null;
  webhook_url: string | null;
  status: string;
  error: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export interface MessageEventRow {
  id: string;
  organization_id: string;
  message_id: string;
  topic: string;
  channel: string;
  error: string | null;
  created_at: string;
}

export const messageColumns =
  "id, organization_id, api_key_id, campaign_id, profile_id, phone_number, category, " +
  "channel, sms_fallback_allowed, sender, body, client_reference, webhook_url, status, " +
  "error, expires_at, created_at, updated_at";

export const eventColumns = "id, organization_id, message_id, topic, channel, error, created_at";

export const toMessage = (row: MessageRow): MessageRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  apiKeyId: row.api_key_id,
  campaignId: row.campaign_id,
  profileId: row.profile_id,
  phoneNumber: row.phone_number,
  category: row.category as Category,
  channel: row.channel as Channel,
  smsFallbackAllowed: fromFlag(row.sms_fallback_allowed),
  sender: row.sender,
  body: row.body,
  clientReference: row.client_reference,
  webhookUrl: row.webhook_url,
  status: row.status as MessageStatus,
  error: fromJsonOrNull<MessageError>(row.error),
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toMessageEvent = (row: MessageEventRow): MessageEventRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  messageId: row.message_id,
  topic: row.topic as Topic,
  channel: row.channel as Channel,
  error: fromJsonOrNull<MessageError>(row.error),
  createdAt: row.created_at,
});

/** Messages, their compare-and-set lifecycle, and their lifecycle events. */
export function messageRepository(sql: Sql): SyncOf<MessageRepository> {
  const one = (row: unknown) => (row === undefined ? null : toMessage(row as MessageRow));
  return {
    insert(message) {
      sql(
        `INSERT INTO messages (${messageColumns})
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
        sql(`SELECT ${messageColumns} FROM messages WHERE id = ? AND organization_id = ?`).get(
          id,
          organizationId,
        ),
      );
    },
    getById(id) {
      return one(sql(`SELECT ${messageColumns} FROM messages WHERE id = ?`).get(id));
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
        `INSERT INTO message_events (${eventColumns})
         VALUES (@id, @organizationId, @messageId, @topic, @channel, @error, @createdAt)`,
      ).run({ ...event, error: toJsonOrNull(event.error) });
    },
    listEvents(organizationId, messageId) {
      const rows = sql(
        `SELECT ${eventColumns} FROM message_events
         WHERE message_id = ? AND organization_id = ? ORDER BY created_at, id`,
      ).all(messageId, organizationId) as MessageEventRow[];
      return rows.map(toMessageEvent);
    },
  };
}
