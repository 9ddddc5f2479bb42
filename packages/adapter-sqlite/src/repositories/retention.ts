import type { RetentionRepository } from "@tidings/core";
import { oldMessagesDeleted, stillOpen } from "@tidings/core/sql";
import { atomically } from "../atomically.js";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** How many free pages one `reclaimSpace` gives back at most (16 MiB of 4 KiB pages). */
const RECLAIM_PAGES = 4096;

interface CandidateRow {
  id: string;
  created_at: string;
  status: string;
  expires_at: string;
}

/** Ids as one JSON array parameter, read back with `json_each`. */
const IDS = "(SELECT value FROM json_each(?))";

/**
 * Retention's deletes. Each call holds the write lock for one bounded batch; the single
 * connection's queue means a reader sees a message either with all its records or gone.
 */
export function retentionRepository({ db, sql }: SqliteConnection): SyncOf<RetentionRepository> {
  return {
    deleteOldMessages({ createdBefore, now, after, limit }) {
      return atomically(db, sql, () => {
        const looked = sql(
          `SELECT id, created_at, status, expires_at FROM messages
           WHERE created_at < ? AND (created_at, id) > (?, ?)
           ORDER BY created_at, id LIMIT ?`,
        ).all(createdBefore, after?.createdAt ?? "", after?.id ?? "", limit) as CandidateRow[];
        const ids = JSON.stringify(looked.map((m) => m.id));
        const pending = new Set(
          (
            sql(
              `SELECT DISTINCT message_id FROM deliveries
               WHERE status = 'pending' AND message_id IN ${IDS}`,
            ).all(ids) as Array<{ message_id: string }>
          ).map((row) => row.message_id),
        );
        const doomed = looked
          .filter((m) => !pending.has(m.id) && !stillOpen(m.status, m.expires_at, now))
          .map((m) => m.id);
        if (doomed.length > 0) {
          const doomedIds = JSON.stringify(doomed);
          // Children first: attempts belong to deliveries, events to messages.
          sql(
            `DELETE FROM delivery_attempts WHERE delivery_id IN
               (SELECT id FROM deliveries WHERE message_id IN ${IDS})`,
          ).run(doomedIds);
          sql(`DELETE FROM deliveries WHERE message_id IN ${IDS}`).run(doomedIds);
          sql(`DELETE FROM message_events WHERE message_id IN ${IDS}`).run(doomedIds);
          sql(`DELETE FROM links WHERE message_id IN ${IDS}`).run(doomedIds);
          sql(`DELETE FROM message_prices WHERE message_id IN ${IDS}`).run(doomedIds);
          sql(`DELETE FROM messages WHERE id IN ${IDS}`).run(doomedIds);
        }
        return oldMessagesDeleted(looked, limit, doomed.length, (m) => ({
          createdAt: m.created_at,
          id: m.id,
        }));
      });
    },
    deleteOldEventDeliveries(createdBefore, limit) {
      return atomically(db, sql, () => {
        // `deliveries_message` (message_id, created_at, id) finds them: NULL is indexed too.
        const doomed = JSON.stringify(
          (
            sql(
              `SELECT id FROM deliveries
               WHERE message_id IS NULL AND created_at < ? AND status <> 'pending'
               ORDER BY created_at, id LIMIT ?`,
            ).all(createdBefore, limit) as Array<{ id: string }>
          ).map((row) => row.id),
        );
        sql(`DELETE FROM delivery_attempts WHERE delivery_id IN ${IDS}`).run(doomed);
        return sql(`DELETE FROM deliveries WHERE id IN ${IDS}`).run(doomed).changes;
      });
    },
    deleteExpiredIdempotencyRecords(now, limit) {
      return sql(
        `DELETE FROM idempotency_records WHERE rowid IN (
           SELECT rowid FROM idempotency_records
           WHERE expires_at <= @now
             AND (state = 'completed' OR locked_until IS NULL OR locked_until <= @now)
           LIMIT @limit)`,
      ).run({ now, limit }).changes;
    },
    deleteRateLimitHitsBefore(before, limit) {
      return sql(
        `DELETE FROM rate_limit_hits WHERE seq IN (
           SELECT seq FROM rate_limit_hits WHERE at <= ? ORDER BY at LIMIT ?)`,
      ).run(before, limit).changes;
    },
    deleteExpiredConsoleSessions(now, limit) {
      const tokens = sql(
        `DELETE FROM console_sign_in_tokens WHERE token_hash IN (
           SELECT token_hash FROM console_sign_in_tokens WHERE expires_at <= ? LIMIT ?)`,
      ).run(now, limit).changes;
      if (tokens >= limit) return tokens;
      const sessions = sql(
        `DELETE FROM console_sessions WHERE id_hash IN (
           SELECT id_hash FROM console_sessions WHERE expires_at <= ? LIMIT ?)`,
      ).run(now, limit - tokens).changes;
      return tokens + sessions;
    },
    reclaimSpace() {
      const free = () =>
        (sql("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count;
      // Only a file in incremental mode gives pages back; for others this is a no-op.
      const before = free();
      if (before === 0) return 0;
      db.exec(`PRAGMA incremental_vacuum(${RECLAIM_PAGES})`);
      return before - free();
    },
  };
}
