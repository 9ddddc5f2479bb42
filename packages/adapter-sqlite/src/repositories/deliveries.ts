import type { ClaimOptions, DeliveryRepository } from "@tidings/core";
import {
  byDue,
  type ClaimCandidate,
  deliveryReads,
  fairOrder,
  insertColumns,
  isoPlus,
  sqlTables,
  toJson,
} from "@tidings/core/sql";
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
  /** The next destination after `key` with pending rows: a loose scan of the index. */
  const nextDestination = () =>
    sql(
      `SELECT destination_key AS key FROM deliveries INDEXED BY deliveries_destination_due
       WHERE status = 'pending' AND destination_key > ? ORDER BY destination_key LIMIT 1`,
    );
  const dueOf = () =>
    sql(
      `SELECT seq, id, organization_id AS organizationId, next_attempt_at AS due
       FROM deliveries INDEXED BY deliveries_destination_due
       WHERE status = 'pending' AND destination_key = @key AND next_attempt_at <= @now
         AND (lease_owner IS NULL OR lease_expires_at <= @now)
       ORDER BY next_attempt_at, id LIMIT @limit`,
    );
  /** Every destination with pending rows, in key order. */
  const pendingDestinations = (): string[] => {
    const next = nextDestination();
    const keys: string[] = [];
    for (
      let row = next.get("") as { key: string } | undefined;
      row !== undefined;
      row = next.get(row.key) as { key: string } | undefined
    ) {
      keys.push(row.key);
    }
    return keys;
  };

  /**
   * The rows a fair claim takes (see the port): each destination's first due rows, read from
   * `deliveries_destination_due` one destination at a time (INDEXED BY, because without
   * statistics SQLite would rather sort every pending row), so a destination's long backlog
   * costs no more than its first rows. The cost grows with the number of destinations that
   * have pending rows.
   */
  const fairDue = (now: string, limit: number, options: ClaimOptions): number[] => {
    const excluded = new Set(options.excludeDestinations ?? []);
    const keys = (options.onlyDestinations ?? pendingDestinations()).filter(
      (key) => !excluded.has(key),
    );
    const perDestination = Math.min(options.perDestination ?? limit, limit);
    const due = dueOf();
    const offers = keys.map(
      (key) =>
        due.all({ key, now, limit: perDestination }) as Array<ClaimCandidate & { seq: number }>,
    );
    return fairOrder(offers, limit).map((c) => c.seq);
  };

  return {
    ...deliveryReads(access),

    insert: (delivery) => deliveries.insert(delivery),

    claimDue(now, limit, owner, leaseMs, options = {}) {
      // SQLite's single writer makes the select-and-lease atomic, also against other processes
      // on the same file, so two engines never hold the same delivery. Its one write needs no
      // savepoint inside a caller's transaction (an engine pass): a statement undoes itself.
      const claim = () => {
        const seqs = fairDue(now, limit, options);
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
      };
      return db.inTransaction ? claim() : atomically(db, sql, claim);
    },

    completeAttempts(owner, attempts) {
      if (attempts.length === 0) return [];
      // The attempt went out, so it is logged whatever became of the lease meanwhile; it
      // belongs to the delivery it completes, whatever ids the caller copied in.
      const log = sql(
        `INSERT INTO delivery_attempts (${insertColumns(sqlTables.deliveryAttempts)})
         SELECT id, organization_id, @attempt, @startedAt, @durationMs, @statusCode, @error,
           @responseBody
         FROM deliveries WHERE id = @id`,
      );
      // The outcome applies only while the lease is still ours and the delivery still owed.
      const apply = sql(
        `UPDATE deliveries SET status = @status, attempts = attempts + 1,
           next_attempt_at = COALESCE(@nextAttemptAt, next_attempt_at),
           first_attempt_at = COALESCE(first_attempt_at, @startedAt),
           last_attempt_at = @startedAt,
           lease_owner = NULL, lease_expires_at = NULL,
           last_status_code = @statusCode, last_error = @error, updated_at = @updatedAt
         WHERE id = @id AND lease_owner = @owner AND status = 'pending'`,
      );
      // One unit for the whole batch: a savepoint per attempt cost an engine pass more than
      // its statements (bench/RESULTS.md, webhook findings).
      return atomically(db, sql, () => {
        return attempts.map(({ id, attempt, next }) => {
          if (log.run({ ...attempt, id }).changes !== 1) return false;
          const applied = apply.run({
            id,
            owner,
            status: next.status,
            nextAttemptAt: next.status === "pending" ? next.nextAttemptAt : null,
            startedAt: attempt.startedAt,
            statusCode: attempt.statusCode,
            error: attempt.error,
            updatedAt: isoPlus(attempt.startedAt, attempt.durationMs),
          });
          return applied.changes === 1;
        });
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

    rekeyForSubscription(organizationId, webhookId, destinationKey) {
      const result = sql(
        `UPDATE deliveries INDEXED BY deliveries_subscription SET destination_key = @destinationKey
         WHERE webhook_id = @webhookId AND status = 'pending' AND organization_id = @organizationId`,
      ).run({ organizationId, webhookId, destinationKey });
      return result.changes;
    },

    dueNowForDestination(destinationKey, at) {
      const result = sql(
        `UPDATE deliveries INDEXED BY deliveries_destination_due SET next_attempt_at = @at
         WHERE destination_key = @destinationKey AND status = 'pending' AND next_attempt_at > @at`,
      ).run({ destinationKey, at });
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
