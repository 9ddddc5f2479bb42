import type { MessageChannelCount, MessageHourCount, MessageRepository } from "@tidings/core";
import { messageRows } from "@tidings/core/sql";
import { atomically } from "../atomically.js";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** Messages, their lifecycle, and their lifecycle events with the events' deliveries. */
export function messageRepository({
  access,
  db,
  sql,
}: SqliteConnection): SyncOf<MessageRepository> {
  const events = access.table("messageEvents");
  const deliveries = access.table("deliveries");
  return {
    ...messageRows(access),
    insertEvent(event, outbox) {
      // One statement is atomic on its own; more take each other back when one is refused.
      if (outbox.length === 0) return events.insert(event);
      return atomically(db, sql, () => {
        events.insert(event);
        for (const delivery of outbox) deliveries.insert(delivery);
      });
    },
    listExpired(now, limit) {
      const rows = sql(
        `SELECT id FROM messages WHERE status = 'sent' AND expires_at <= ?
         ORDER BY expires_at, id LIMIT ?`,
      ).all(now, limit) as Array<{ id: string }>;
      return rows.map((row) => row.id);
    },
    countByChannel(organizationId, since) {
      return sql(
        `SELECT channel, status, COUNT(*) AS count FROM messages
         WHERE organization_id = ? AND created_at >= ? GROUP BY channel, status`,
      ).all(organizationId, since) as MessageChannelCount[];
    },
    countByHour(organizationId, since) {
      return sql(
        `SELECT substr(created_at, 1, 13) AS hour, status, COUNT(*) AS count FROM messages
         WHERE organization_id = ? AND created_at >= ? GROUP BY hour, status`,
      ).all(organizationId, since) as MessageHourCount[];
    },
  };
}
