import type { MessageHourCount, MessageRepository } from "@tidings/core";
import { messageRows } from "@tidings/core/sql";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** Messages, their compare-and-set lifecycle, and their lifecycle events. */
export function messageRepository({ access, sql }: SqliteConnection): SyncOf<MessageRepository> {
  return {
    ...messageRows(access),
    listExpired(now, limit) {
      const rows = sql(
        `SELECT id FROM messages WHERE status = 'sent' AND expires_at <= ?
         ORDER BY expires_at, id LIMIT ?`,
      ).all(now, limit) as Array<{ id: string }>;
      return rows.map((row) => row.id);
    },
    countByHour(organizationId, since) {
      return sql(
        `SELECT substr(created_at, 1, 13) AS hour, status, COUNT(*) AS count FROM messages
         WHERE organization_id = ? AND created_at >= ? GROUP BY hour, status`,
      ).all(organizationId, since) as MessageHourCount[];
    },
  };
}
