import type { Channel, MessageRepository, MessageStatus } from "@tidings/core";
import {
  insertColumns,
  insertStatement,
  jsonRow,
  messageRows,
  rowValues,
  sqlTables,
  toJson,
} from "@tidings/core/sql";
import { postgresCodec as codec, fromBigint } from "../columns.js";
import { notifyDeliveries } from "../notifications.js";
import type { PgConnection } from "../sql.js";

/** Messages, their lifecycle, and their events with the events' deliveries. */
export function messageRepository({ access, sql }: PgConnection): MessageRepository {
  const t = sql.tables;
  const { messageEvents, deliveries } = sqlTables;
  const next = messageEvents.columns.length + 1;
  /**
   * The event, its deliveries (`$next`: a JSON array of their rows, each filled in as a row of
   * the table) and, when any is pending, the notification `deliveries.insert` sends: one
   * statement, so one round trip, atomic on its own, and the notification goes out only if
   * the inserts commit.
   */
  const eventWithDeliveries = `WITH event AS (
      ${insertStatement(messageEvents, codec, t.messageEvents)}
    ),
    inserted AS (
      INSERT INTO ${t.deliveries} (${insertColumns(deliveries)})
      SELECT ${insertColumns(deliveries)}
      FROM jsonb_populate_recordset(NULL::${t.deliveries}, $${next}::text::jsonb)
      RETURNING status
    )
    SELECT ${notifyDeliveries(next + 1)}
    WHERE EXISTS (SELECT 1 FROM inserted WHERE status = 'pending')`;
  return {
    ...messageRows(access),
    async insertEvent(event, outbox) {
      await sql.run(eventWithDeliveries, [
        ...rowValues(messageEvents, event, codec),
        toJson(outbox.map((delivery) => jsonRow(deliveries, delivery, codec))),
        t.schema,
      ]);
    },
    async listExpired(now, limit) {
      const rows = await sql.rows<{ id: string }>(
        `SELECT id FROM ${t.messages} WHERE status = 'sent' AND expires_at <= $1
         ORDER BY expires_at, id LIMIT $2`,
        [now, limit],
      );
      return rows.map((row) => row.id);
    },
    async countByChannel(organizationId, since) {
      const rows = await sql.rows<{ channel: Channel; status: MessageStatus; count: unknown }>(
        `SELECT channel, status, COUNT(*) AS count FROM ${t.messages}
         WHERE organization_id = $1 AND created_at >= $2 GROUP BY 1, 2`,
        [organizationId, since],
      );
      return rows.map((row) => ({
        channel: row.channel,
        status: row.status,
        count: fromBigint(row.count),
      }));
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
