import type { MessageRepository, MessageStatus } from "@tidings/core";
import { messageRows } from "@tidings/core/sql";
import { fromBigint } from "../columns.js";
import type { PgConnection } from "../sql.js";

/** Messages, their lifecycle compare-and-set, and their events. */
export function messageRepository({ access, sql }: PgConnection): MessageRepository {
  const t = sql.tables;
  return {
    ...messageRows(access),
    async listExpired(now, limit) {
      const rows = await sql.rows<{ id: string }>(
        `SELECT id FROM ${t.messages} WHERE status = 'sent' AND expires_at <= $1
         ORDER BY expires_at, id LIMIT $2`,
        [now, limit],
      );
      return rows.map((row) => row.id);
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
