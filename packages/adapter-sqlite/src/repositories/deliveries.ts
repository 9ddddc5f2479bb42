import type { DeliveryRepository } from "@tidings/core";
import { byDue, deliveryReads, insertColumns, isoPlus, sqlTables, toJson } from "@tidings/core/sql";
import { atomically } from "../atomically.js";
import { records, select } from "../columns.js";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/**
 * Not pending, and no lease live at `@at`: an attempt still in flight holds one, so a
 * redelivery never puts a second attempt beside it.
 */
const REDELIVERABLE = "status <> 'pending' AND (lease_owner IS NULL OR lease_expires_at <= @at)";

/** Pending again, due at `@at`, in a new retry window; id, payload and attempts kept. */
const REDELIVERED =
  "status = 'pending', next_attempt_at = @at, first_attempt_at = NULL, " +
  "window_start_attempt = attempts, lease_owner = NULL, lease_expires_at = NULL, updated_at = @at";

/** Webhook deliveries, claimed by engines as time-limited leases, and their attempt log. */
export function deliveryRepository({
  access,
  db,
  sql,
}: SqliteConnection): SyncOf<DeliveryRepository> {
  const deliveries = access.table("deliveries");
  /** The `limit` oldest due, unleased pending rows, read in due order from `deliveries_due`. */
  const oldestDue = (now: string, limit: number): number[] =>
    (
      sql(
        `SELECT seq FROM deliveries
         WHERE status = 'pending' AND next_attempt_at <= @now
           AND (lease_owner IS NULL OR lease_expires_at <= @now)
         ORDER BY next_attempt_at, id LIMIT @limit`,
      ).all({ now, limit }) as Array<{ seq: number }>
    ).map((row) => row.seq);

  /**
   * The `limit` oldest due, unleased pending rows of every destination but the `excluded` ones,
   * without reading the excluded destinations' backlogs: a loose scan of
   * `deliveries_destination_due` steps from one pending destination to the next, and only the
   * others' due rows are read. INDEXED BY, because without statistics SQLite would rather
   * sort every pending row by destination. Its cost grows with the number of destinations that have
   * pending rows, not with how many rows a saturated destination has waiting.
   */
  const oldestDueOutside = (excluded: Set<string>, now: string, limit: number): number[] => {
    const nextDestination = sql(
      `SELECT destination_key AS key FROM deliveries INDEXED BY deliveries_destination_due
       WHERE status = 'pending' AND destination_key > ? ORDER BY destination_key LIMIT 1`,
    );
    const dueOf = sql(
      `SELECT seq, next_attempt_at AS due, id FROM deliveries INDEXED BY deliveries_destination_due
       WHERE status = 'pending' AND destination_key = @key AND next_attempt_at <= @now
         AND (lease_owner IS NULL OR lease_expires_at <= @now)
       ORDER BY next_attempt_at, id LIMIT @limit`,
    );
    const candidates: Array<{ seq: number; due: string; id: string }> = [];
    let row = nextDestination.get("") as { key: string } | undefined;
    while (row !== undefined) {
      if (!excluded.has(row.key)) {
        candidates.push(...(dueOf.all({ key: row.key, now, limit }) as typeof candidates));
      }
      row = nextDestination.get(row.key) as { key: string } | undefined;
    }
    const order = (c: { due: string; id: string }) => `${c.due} ${c.id}`;
    candidates.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
    return candidates.slice(0, limit).map((c) => c.seq);
  };

  return {
    ...deliveryReads(access),

    insert: (delivery) => deliveries.insert(delivery),

    claimDue(now, limit, owner, leaseMs, options = {}) {
      const excluded = new Set(options.excludeDestinations ?? []);
      // SQLite's single writer makes the select-and-lease atomic, also against other processes
      // on the same file, so two engines never hold the same delivery.
      return atomically(db, () => {
        const seqs =
          excluded.size === 0 ? oldestDue(now, limit) : oldestDueOutside(excluded, now, limit);
        if (seqs.length === 0) return [];
        const rows = sql(
          `UPDATE deliveries SET lease_owner = @owner, lease_expires_at = @leaseExpiresAt
           WHERE seq IN (SELECT value FROM json_each(@seqs))
           RETURNING ${select.deliveries}`,
        ).all({
          owner,
          leaseExpiresAt: isoPlus(now, leaseMs),
          seqs: toJson(seqs),
        });
        // RETURNING gives no order guarantee; the port promises oldest due first.
        return rows.map(records.delivery).sort(byDue);
      });
    },

    completeAttempt(id, owner, { attempt, next }) {
      return atomically(db, () => {
        // The attempt went out, so it is logged whatever became of the lease meanwhile; it
        // belongs to the delivery it completes, whatever ids the caller copied in.
        const logged = sql(
          `INSERT INTO delivery_attempts (${insertColumns(sqlTables.deliveryAttempts)})
           SELECT id, organization_id, @attempt, @startedAt, @durationMs, @statusCode, @error,
             @responseBody
           FROM deliveries WHERE id = @id`,
        ).run({ ...attempt, id });
        if (logged.changes !== 1) return false;
        // The outcome applies only while the lease is still ours and the delivery still owed.
        const result = sql(
          `UPDATE deliveries SET status = @status, attempts = attempts + 1,
             next_attempt_at = COALESCE(@nextAttemptAt, next_attempt_at),
             first_attempt_at = COALESCE(first_attempt_at, @startedAt),
             last_attempt_at = @startedAt,
             lease_owner = NULL, lease_expires_at = NULL,
             last_status_code = @statusCode, last_error = @error, updated_at = @updatedAt
           WHERE id = @id AND lease_owner = @owner AND status = 'pending'`,
        ).run({
          id,
          owner,
          status: next.status,
          nextAttemptAt: next.status === "pending" ? next.nextAttemptAt : null,
          startedAt: attempt.startedAt,
          statusCode: attempt.statusCode,
          error: attempt.error,
          updatedAt: isoPlus(attempt.startedAt, attempt.durationMs),
        });
        return result.changes === 1;
      });
    },

    cancelForSubscription(organizationId, webhookId, at) {
      const result = sql(
        // The pending rows only: the subscription's whole log has an index of its own too.
        `UPDATE deliveries INDEXED BY deliveries_subscription SET status = 'cancelled', lease_owner = NULL,
           lease_expires_at = NULL, updated_at = @at
         WHERE webhook_id = @webhookId AND status = 'pending'
           AND organization_id = @organizationId`,
      ).run({ organizationId, webhookId, at });
      return result.changes;
    },

    redeliver(organizationId, id, at) {
      const result = sql(
        `UPDATE deliveries SET ${REDELIVERED}
         WHERE id = @id AND organization_id = @organizationId AND ${REDELIVERABLE}`,
      ).run({ organizationId, id, at });
      return result.changes === 1;
    },

    requeueForSubscription(organizationId, webhookId, since, at) {
      const result = sql(
        `UPDATE deliveries SET ${REDELIVERED}
         WHERE webhook_id = @webhookId AND organization_id = @organizationId
           AND status IN ('failed', 'cancelled') AND created_at >= @since AND ${REDELIVERABLE}`,
      ).run({ organizationId, webhookId, since, at });
      return result.changes;
    },

    failingDestinations(q) {
      // The newest `scan` failed and pending rows each, read backwards along
      // deliveries_organization_status; grouped, each group's bare columns are those of its
      // row with the latest attempt (SQLite's rule for a lone MAX()).
      const newest = (status: string, condition: string) =>
        `SELECT * FROM (
           SELECT webhook_id, destination_key, destination ->> '$.url' AS url, status, attempts,
             last_attempt_at, last_status_code, last_error
           FROM deliveries WHERE organization_id = @organizationId AND status = '${status}'
           ORDER BY seq DESC LIMIT @scan)
         WHERE ${condition}`;
      const rows = sql(
        `SELECT webhook_id, destination_key, url,
           SUM(status = 'pending') AS retrying, SUM(status = 'failed') AS failed,
           MAX(last_attempt_at) AS last_attempt_at, last_status_code, last_error
         FROM (
           ${newest("failed", "last_attempt_at >= @since")}
           UNION ALL
           ${newest(
             "pending",
             "attempts > 0 AND (last_status_code IS NULL OR last_status_code NOT BETWEEN 200 AND 299)",
           )})
         GROUP BY coalesce(webhook_id, destination_key)
         ORDER BY last_attempt_at DESC, coalesce(webhook_id, destination_key) LIMIT @limit`,
      ).all(q);
      return rows.map(records.failingDestination);
    },

    nextDueAt() {
      const row = sql(
        "SELECT MIN(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'",
      ).get() as { due: string | null };
      return row.due;
    },
  };
}
