import type { RetentionRepository } from "@tidings/core";
import { oldMessagesDeleted, stillOpen } from "@tidings/core/sql";
import type { PgConnection } from "../sql.js";

interface CandidateRow {
  id: string;
  created_at: string;
  status: string;
  expires_at: string;
}

/**
 * Retention's deletes, each batch in one transaction that never waits for a lock: rows another
 * transaction holds (a second sweeper, a claim, a lifecycle change, a redelivery) are skipped
 * and left for a later batch. Locks are taken messages first, then their deliveries in id
 * order, the order in which lifecycle changes take them, so no cycle can form.
 */
export function retentionRepository({ sql }: PgConnection): RetentionRepository {
  const t = sql.tables;
  /**
   * Deletes at most `limit` rows of `table` that `where` picks (`$1` is `at`), keyed by `key`,
   * passing over rows another transaction holds; how many it deleted.
   */
  const deleteBatch = async (
    table: string,
    key: string,
    where: string,
    at: string | number,
    limit: number,
  ): Promise<number> => {
    const rows = await sql.rows(
      `DELETE FROM ${table} WHERE (${key}) IN (
         SELECT ${key} FROM ${table} WHERE ${where} LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING 1`,
      [at, limit],
    );
    return rows.length;
  };
  return {
    deleteOldMessages: ({ createdBefore, now, after, limit }) =>
      sql.atomic(async (tx) => {
        const looked = await tx.rows<CandidateRow>(
          `SELECT id, created_at, status, expires_at FROM ${t.messages}
           WHERE created_at < $1 AND (created_at, id) > ($2, $3)
           ORDER BY created_at, id LIMIT $4
           FOR UPDATE SKIP LOCKED`,
          [createdBefore, after?.createdAt ?? "", after?.id ?? "", limit],
        );
        const candidates = looked
          .filter((m) => !stillOpen(m.status, m.expires_at, now))
          .map((m) => m.id);
        // A delivery locked by someone else is not read; its message is kept for later, as
        // its status may be about to change (a redelivery makes a failed one pending again).
        const locked = await tx.rows<{ message_id: string; status: string }>(
          `SELECT message_id, status FROM ${t.deliveries}
           WHERE message_id = ANY($1::text[]) ORDER BY id FOR UPDATE SKIP LOCKED`,
          [candidates],
        );
        const all = await tx.rows<{ message_id: string; n: string }>(
          `SELECT message_id, count(*) AS n FROM ${t.deliveries}
           WHERE message_id = ANY($1::text[]) GROUP BY message_id`,
          [candidates],
        );
        const lockedCount = new Map<string, number>();
        const pending = new Set<string>();
        for (const row of locked) {
          lockedCount.set(row.message_id, (lockedCount.get(row.message_id) ?? 0) + 1);
          if (row.status === "pending") pending.add(row.message_id);
        }
        const skipped = new Set(
          all
            .filter((row) => Number(row.n) !== (lockedCount.get(row.message_id) ?? 0))
            .map((row) => row.message_id),
        );
        const doomed = candidates.filter((id) => !pending.has(id) && !skipped.has(id));
        if (doomed.length > 0) {
          // Children first: attempts belong to deliveries, events to messages.
          await tx.rows(
            `DELETE FROM ${t.deliveryAttempts} WHERE delivery_id IN
               (SELECT id FROM ${t.deliveries} WHERE message_id = ANY($1::text[]))`,
            [doomed],
          );
          await tx.rows(`DELETE FROM ${t.deliveries} WHERE message_id = ANY($1::text[])`, [doomed]);
          await tx.rows(`DELETE FROM ${t.messageEvents} WHERE message_id = ANY($1::text[])`, [
            doomed,
          ]);
          await tx.rows(`DELETE FROM ${t.links} WHERE message_id = ANY($1::text[])`, [doomed]);
          await tx.rows(`DELETE FROM ${t.messagePrices} WHERE message_id = ANY($1::text[])`, [
            doomed,
          ]);
          await tx.rows(`DELETE FROM ${t.messages} WHERE id = ANY($1::text[])`, [doomed]);
        }
        return oldMessagesDeleted(looked, limit, doomed.length, (m) => ({
          createdAt: m.created_at,
          id: m.id,
        }));
      }),
    deleteOldEventDeliveries: (createdBefore, limit) =>
      sql.atomic(async (tx) => {
        // `deliveries_message` (message_id, created_at, id) finds them: NULL is indexed too.
        // A held delivery is passed over: a redelivery may be making it pending again.
        const doomed = (
          await tx.rows<{ id: string }>(
            `SELECT id FROM ${t.deliveries}
             WHERE message_id IS NULL AND created_at < $1 AND status <> 'pending'
             ORDER BY created_at, id LIMIT $2
             FOR UPDATE SKIP LOCKED`,
            [createdBefore, limit],
          )
        ).map((row) => row.id);
        if (doomed.length === 0) return 0;
        await tx.rows(`DELETE FROM ${t.deliveryAttempts} WHERE delivery_id = ANY($1::text[])`, [
          doomed,
        ]);
        const deleted = await tx.rows(
          `DELETE FROM ${t.deliveries} WHERE id = ANY($1::text[]) RETURNING 1`,
          [doomed],
        );
        return deleted.length;
      }),
    deleteExpiredIdempotencyRecords: (now, limit) =>
      deleteBatch(
        t.idempotencyRecords,
        "api_key_id, endpoint, key",
        `expires_at <= $1
           AND (state = 'completed' OR locked_until IS NULL OR locked_until <= $1)`,
        now,
        limit,
      ),
    deleteRateLimitHitsBefore: (before, limit) =>
      deleteBatch(t.rateLimitHits, "seq", "at <= $1 ORDER BY at", before, limit),
    deleteExpiredConsoleSessions: async (now, limit) => {
      const expired = "expires_at <= $1";
      const tokens = await deleteBatch(t.consoleSignInTokens, "token_hash", expired, now, limit);
      if (tokens >= limit) return tokens;
      return (
        tokens + (await deleteBatch(t.consoleSessions, "id_hash", expired, now, limit - tokens))
      );
    },
    // Autovacuum reuses the space of deleted rows; nothing to hand back by hand.
    reclaimSpace: async () => 0,
  };
}
