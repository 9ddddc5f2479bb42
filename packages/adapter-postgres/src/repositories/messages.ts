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
import { fromJsonOrNull, toJsonOrNull } from "../columns.js";
import type { Sql } from "../sql.js";

export interface MessageRow {
  id: string;
  organization_id: string;
  api_key_id: string;
  campaign_id: string;
  profile_id: string;
  phone_number: string;
  category: string;
  channel: string;
  sms_fallback_allowed: boolean;
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

export interface EventRow {
  id: string;
  organization_id: string;
  message_id: string;
  topic: string;
  channel: string;
  error: string | null;
  created_at: string;
}

const messageFields =
  "id, organization_id, api_key_id, campaign_id, profile_id, phone_number, category, channel, " +
  "sms_fallback_allowed, sender, body, client_reference, webhook_url, status, error, " +
  "expires_at, created_at, updated_at";

export const messageColumns = messageFields.replace("error,", "error::text AS error,");

export const eventColumns =
  "id, organization_id, message_id, topic, channel, error::text AS error, created_at";

export const toMessage = (row: MessageRow): MessageRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  apiKeyId: row.api_key_id,
  campaignId: row.campaign_id,
  profileId: row.profile_id,
  phoneNumber: row.phone_number,
  category: row.category as Category,
  channel: row.channel as Channel,
  smsFallbackAllowed: row.sms_fallback_allowed,
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

export const toMessageEvent = (row: EventRow): MessageEventRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  messageId: row.message_id,
  topic: row.topic as Topic,
  channel: row.channel as Channel,
  error: fromJsonOrNull<MessageError>(row.error),
  createdAt: row.created_at,
});

/** Messages, their lifecycle compare-and-set, and their events. */
export function messageRepository(sql: Sql): MessageRepository {
  const t = sql.tables;
  const select = `SELECT ${messageColumns} FROM ${t.messages}`;
  const one = async (text: string, values: unknown[]) => {
    const rows = await sql.rows<MessageRow>(text, values);
    return rows[0] === undefined ? null : toMessage(rows[0]);
  };
  return {
    async insert(m) {
      await sql.rows(
        `INSERT INTO ${t.messages} (${messageFields})
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
        `INSERT INTO ${t.messageEvents} (id, organization_id, message_id, topic, channel, error,
           created_at)
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
      const rows = await sql.rows<EventRow>(
        `SELECT ${eventColumns} FROM ${t.messageEvents}
         WHERE message_id = $1 AND organization_id = $2 ORDER BY created_at, id`,
        [messageId, organizationId],
      );
      return rows.map(toMessageEvent);
    },
  };
}
