import type {
  DeliveryAttemptRecord,
  DeliveryDestination,
  DeliveryRecord,
  DeliveryRepository,
  DeliveryStatus,
} from "@tidings/core";
import { atomically } from "../atomically.js";
import { fromJson, toJson } from "../columns.js";
import type { Sql, SqliteDatabase } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

export interface DeliveryRow {
  id: string;
  organization_id: string;
  event_id: string;
  message_id: string | null;
  topic: string;
  destination: string;
  destination_key: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  first_attempt_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface AttemptRow {
  delivery_id: string;
  organization_id: string;
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

export const deliveryColumns =
  "id, organization_id, event_id, message_id, topic, destination, destination_key, payload, " +
  "status, attempts, next_attempt_at, first_attempt_at, lease_owner, lease_expires_at, " +
  "last_status_code, last_error, created_at, updated_at";

export const attemptColumns =
  "delivery_id, organization_id, attempt, started_at, duration_ms, status_code, error, " +
  "response_body";

export const toDelivery = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  eventId: row.event_id,
  messageId: row.message_id,
  topic: row.topic,
  destination: fromJson<DeliveryDestination>(row.destination),
  destinationKey: row.destination_key,
  payload: row.payload,
  status: row.status as DeliveryStatus,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  firstAttemptAt: row.first_attempt_at,
  leaseOwner: row.lease_owner,
  leaseExpiresAt: row.lease_expires_at,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toAttempt = (row: AttemptRow): DeliveryAttemptRecord => ({
  deliveryId: row.delivery_id,
  organizationId: row.organization_id,
  attempt: row.attempt,
  startedAt: row.started_at,
  durationMs: row.duration_ms,
  statusCode: row.status_code,
  error: row.error,
  responseBody: row.response_body,
});

const isoPlus = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

/** Webhook deliveries, claimed by engines as time-limited leases, and their attempt log. */
export function deliveryRepository(db: SqliteDatabase, sql: Sql): SyncOf<DeliveryRepository> {
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
    insert(delivery) {
      sql(
        `INSERT INTO deliveries (${deliveryColumns})
         VALUES (@id, @organizationId, @eventId, @messageId, @topic, @destination,
           @destinationKey, @payload, @status, @attempts, @nextAttemptAt, @firstAttemptAt, @leaseOwner, @leaseExpiresAt,
           @lastStatusCode, @lastError, @createdAt, @updatedAt)`,
      ).run({ ...delivery, destination: toJson(delivery.destination) });
    },

    get(organizationId, id) {
      const row = sql(
        `SELECT ${deliveryColumns} FROM deliveries WHERE id = ? AND organization_id = ?`,
      ).get(id, organizationId);
      return row === undefined ? null : toDelivery(row as DeliveryRow);
    },

    listForMessage(organizationId, messageId) {
      const rows = sql(
        `SELECT ${deliveryColumns} FROM deliveries WHERE message_id = ? AND organization_id = ?
         ORDER BY created_at, id`,
      ).all(messageId, organizationId) as DeliveryRow[];
      return rows.map(toDelivery);
    },

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
           RETURNING ${deliveryColumns}`,
        ).all({
          owner,
          leaseExpiresAt: isoPlus(now, leaseMs),
          seqs: toJson(seqs),
        }) as DeliveryRow[];
        // RETURNING gives no order guarantee; the port promises oldest due first.
        const order = (row: DeliveryRow) => `${row.next_attempt_at} ${row.id}`;
        rows.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
        return rows.map(toDelivery);
      });
    },

    completeAttempt(id, owner, { attempt, next }) {
      return atomically(db, () => {
        // The attempt went out, so it is logged whatever became of the lease meanwhile; it
        // belongs to the delivery it completes, whatever ids the caller copied in.
        const logged = sql(
          `INSERT INTO delivery_attempts (${attemptColumns})
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
        `UPDATE deliveries SET status = 'cancelled', lease_owner = NULL,
           lease_expires_at = NULL, updated_at = @at
         WHERE webhook_id = @webhookId AND status = 'pending'
           AND organization_id = @organizationId`,
      ).run({ organizationId, webhookId, at });
      return result.changes;
    },

    redeliver(organizationId, id, at) {
      const result = sql(
        `UPDATE deliveries SET status = 'pending', next_attempt_at = @at, lease_owner = NULL,
           lease_expires_at = NULL, updated_at = @at
         WHERE id = @id AND organization_id = @organizationId AND status = 'failed'`,
      ).run({ organizationId, id, at });
      return result.changes === 1;
    },

    listAttempts(organizationId, deliveryId) {
      const rows = sql(
        `SELECT ${attemptColumns} FROM delivery_attempts
         WHERE delivery_id = ? AND organization_id = ? ORDER BY attempt, seq`,
      ).all(deliveryId, organizationId) as AttemptRow[];
      return rows.map(toAttempt);
    },

    nextDueAt() {
      const row = sql(
        "SELECT MIN(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'",
      ).get() as { due: string | null };
      return row.due;
    },
  };
}
