import type {
  ClaimStep,
  CompletedAttempt,
  DeliveryRecord,
  DeliveryRepository,
} from "@tidings/core";
import {
  byDue,
  deliveryReads,
  insertColumns,
  insertStatement,
  isoPlus,
  rowValues,
  selectColumns,
  sqlTables,
} from "@tidings/core/sql";
import { postgresCodec as codec, records } from "../columns.js";
import { notifyDeliveries } from "../notifications.js";
import type { PgConnection, Sql } from "../sql.js";

/** The parameter numbers of a claim's values (see `claimSteps` in `deliveryRepository`). */
interface ClaimParams {
  owner: number;
  now: number;
  limit: number;
  expires: number;
  stepLimits: number;
  stepPers: number;
  stepDiscovers: number;
  namedSteps: number;
  namedKeys: number;
  excludedSteps: number;
  excludedKeys: number;
}

/**
 * Not pending, and no lease live at `$3`: an attempt still in flight holds one, so a
 * redelivery never puts a second attempt beside it.
 */
const REDELIVERABLE =
  "status <> 'pending' AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= $3)";

/** Pending again, due at `$3`, in a new retry window; id, payload and attempts kept. */
const REDELIVERED =
  "status = 'pending', next_attempt_at = $3, first_attempt_at = NULL, " +
  "window_start_attempt = attempts, lease_owner = NULL, lease_expires_at = NULL, updated_at = $3";

/**
 * Webhook deliveries, claimed by engines in any number of processes as time-limited leases,
 * and their attempt log. Making a delivery pending notifies `DELIVERIES_CHANNEL`.
 */
export function deliveryRepository({ access, sql }: PgConnection): DeliveryRepository {
  const t = sql.tables;
  /**
   * The claim of an engine's pass in one statement (see the port's `claimSteps`), its steps in
   * `$5`–`$7` (limit, rows per destination, whether it looks for destinations itself), the
   * destinations a step names in `$8`/`$9`, those it passes over in `$10`/`$11`. A step that
   * names none finds them by a loose index scan that steps from one pending destination to the
   * next (made only when a step needs it), less the destinations any step names. Each
   * destination of a step offers its first due rows that no other claimer is locking (SKIP
   * LOCKED), read from `deliveries_destination_due`, so a destination's long backlog costs no
   * more than its first rows; the offers are locked as they are read, checked again on the
   * locked row. Within a step each organization's offers take turns; a step takes its first
   * `limit` by (turn, due, id), and the steps in order take at most `$2` in all. Offers not
   * taken stay locked until the claim commits, so a concurrent claimer passes over them this
   * once. Its cost grows with the number of destinations that have pending rows, not with
   * their backlogs.
   */
  const claimSteps = (p: ClaimParams, skip = "") => `steps AS (
      SELECT * FROM unnest($${p.stepLimits}::integer[], $${p.stepPers}::integer[],
        $${p.stepDiscovers}::boolean[]) WITH ORDINALITY AS s (step_limit, per, discover, step)
    ),
    named AS (SELECT * FROM unnest($${p.namedSteps}::integer[], $${p.namedKeys}::text[]) AS n (step, key)),
    excluded AS (
      SELECT * FROM unnest($${p.excludedSteps}::integer[], $${p.excludedKeys}::text[]) AS e (step, key)
    ),
    pending_destinations AS (
      (SELECT destination_key AS key FROM ${t.deliveries}
       WHERE status = 'pending' AND true = ANY ($${p.stepDiscovers}::boolean[])
       ORDER BY destination_key LIMIT 1)
      UNION ALL
      SELECT (SELECT p.destination_key FROM ${t.deliveries} p
              WHERE p.status = 'pending' AND p.destination_key > pending_destinations.key
              ORDER BY p.destination_key LIMIT 1)
      FROM pending_destinations WHERE pending_destinations.key IS NOT NULL
    ),
    destinations AS (
      SELECT s.step, p.key, s.per FROM steps s
      JOIN pending_destinations p ON s.discover AND p.key IS NOT NULL
      WHERE p.key NOT IN (SELECT key FROM named)
      UNION
      SELECT s.step, n.key, s.per FROM named n JOIN steps s ON s.step = n.step
    ),
    kept AS (
      SELECT * FROM destinations d
      WHERE NOT EXISTS (SELECT 1 FROM excluded e WHERE e.step = d.step AND e.key = d.key)
    ),
    offers AS (
      SELECT kept.step, kept.key, offer.* FROM kept
      CROSS JOIN LATERAL (
        SELECT id, organization_id, next_attempt_at
        FROM ${t.deliveries}
        WHERE status = 'pending' AND destination_key = kept.key
          AND next_attempt_at <= $${p.now} AND (lease_owner IS NULL OR lease_expires_at IS NULL
            OR lease_expires_at <= $${p.now})${skip}
        ORDER BY next_attempt_at, id
        LIMIT kept.per
        FOR UPDATE SKIP LOCKED
      ) offer
    ),
    ranked AS (
      SELECT step, id, organization_id, next_attempt_at, row_number() OVER (
        PARTITION BY step, key ORDER BY next_attempt_at, id) AS rank
      FROM offers
    ),
    turns AS (
      SELECT step, id, next_attempt_at, row_number() OVER (
        PARTITION BY step, organization_id ORDER BY rank, next_attempt_at, id) AS turn
      FROM ranked
    ),
    ordered AS (
      SELECT step, id, turn, next_attempt_at, row_number() OVER (
        PARTITION BY step ORDER BY turn, next_attempt_at, id) AS n
      FROM turns
    ),
    picked AS (
      SELECT o.id FROM ordered o JOIN steps s ON s.step = o.step
      WHERE o.n <= s.step_limit
      ORDER BY o.step, o.turn, o.next_attempt_at, o.id
      LIMIT $${p.limit}
    ),
    claimed AS (
      UPDATE ${t.deliveries} d SET lease_owner = $${p.owner}, lease_expires_at = $${p.expires}
      FROM picked WHERE d.id = picked.id
      RETURNING ${selectColumns(sqlTables.deliveries, codec, "d.")}
    )`;

  /** A claim's values, in the order `claimParams` numbers them. */
  const claimValues = (
    now: string,
    limit: number,
    leaseMs: number,
    steps: readonly ClaimStep[],
  ): unknown[] => {
    const named = steps.flatMap((step, i) =>
      (step.onlyDestinations ?? []).map((key) => [i + 1, key] as const),
    );
    const excluded = steps.flatMap((step, i) =>
      (step.excludeDestinations ?? []).map((key) => [i + 1, key] as const),
    );
    return [
      now,
      limit,
      isoPlus(now, leaseMs),
      steps.map((step) => Math.min(step.limit, limit)),
      steps.map((step) => Math.min(step.perDestination ?? step.limit, step.limit, limit)),
      steps.map((step) => step.onlyDestinations === undefined),
      named.map(([step]) => step),
      named.map(([, key]) => key),
      excluded.map(([step]) => step),
      excluded.map(([, key]) => key),
    ];
  };
  /** The parameters of a claim's values from `$first` on (`claimValues`), and its owner's. */
  const claimParams = (first: number, owner: number): ClaimParams => ({
    owner,
    now: first,
    limit: first + 1,
    expires: first + 2,
    stepLimits: first + 3,
    stepPers: first + 4,
    stepDiscovers: first + 5,
    namedSteps: first + 6,
    namedKeys: first + 7,
    excludedSteps: first + 8,
    excludedKeys: first + 9,
  });
  /** The steps that may claim anything. */
  const claiming = (limit: number, steps: readonly ClaimStep[]) =>
    limit <= 0 ? [] : steps.filter((step) => Math.min(step.limit, limit) > 0);

  const claim = async (
    now: string,
    limit: number,
    owner: string,
    leaseMs: number,
    steps: readonly ClaimStep[],
  ) => {
    const taken = claiming(limit, steps);
    if (taken.length === 0) return [];
    // SKIP LOCKED: a claimer passes over rows another claimer is leasing right now instead of
    // waiting for it, and the lease condition is checked again on the locked row, so two
    // claimers in any processes never both take a row.
    const rows = await sql.rows(
      `WITH RECURSIVE ${claimSteps(claimParams(2, 1))} SELECT * FROM claimed`,
      [owner, ...claimValues(now, limit, leaseMs, taken)],
    );
    return rows.map(records.delivery).sort(byDue);
  };

  /**
   * The record of a pass and its claim in one statement (see the port's `recordAndClaim`):
   * the attempts' rows are locked in id order first (the claim's locks never wait: SKIP
   * LOCKED), and the claim passes over the recorded deliveries, whose new state it cannot see.
   * The answer carries both: claimed rows (`claimed` true), and each logged attempt's
   * delivery id and whether its outcome applied.
   */
  const recordAndClaim = async (
    owner: string,
    attempts: readonly CompletedAttempt[],
    now: string,
    limit: number,
    leaseMs: number,
    steps: readonly ClaimStep[],
  ) => {
    const taken = claiming(limit, steps);
    if (taken.length === 0 || distinctRounds(attempts).length > 1) return null;
    const columns = sqlTables.deliveries.columns;
    const rows = await sql.rows<Record<string, unknown>>(
      `WITH RECURSIVE ${completionOf(t)},
       ${claimSteps(
         claimParams(12, 1),
         // Evaluated once, before the first offer: the attempts' rows are locked first.
         ` AND id <> ALL ($2::text[]) AND (SELECT count(*) FROM locked) >= 0`,
       )}
       SELECT true AS claim, NULL::boolean AS applied, claimed.* FROM claimed
       UNION ALL
       SELECT false, delivery_id IN (SELECT id FROM completed), delivery_id,
         ${columns
           .slice(1)
           .map(() => "NULL")
           .join(", ")}
       FROM logged`,
      [owner, ...completionValues(attempts), ...claimValues(now, limit, leaseMs, taken)],
    );
    const applied = new Map<string, boolean>();
    const claimed: DeliveryRecord[] = [];
    for (const row of rows) {
      if (row.claim === true) claimed.push(records.delivery(row));
      else applied.set(String(row.id), row.applied === true);
    }
    return {
      recorded: attempts.map((a) => applied.get(a.id) === true),
      claimed: claimed.sort(byDue),
    };
  };

  /**
   * An update of the pending rows matching `where`, answering their ids: the rows are locked in
   * id order first, the order a delivery engine records its batch in, so the two never
   * deadlock (FOR UPDATE checks `where` again on each row it waited for).
   */
  const pendingInIdOrder = (where: string, set: string) =>
    `WITH locked AS (
       SELECT id FROM ${t.deliveries}
       WHERE status = 'pending' AND ${where}
       ORDER BY id
       FOR UPDATE
     )
     UPDATE ${t.deliveries} d SET ${set}
     FROM locked WHERE d.id = locked.id
     RETURNING d.id`;

  return {
    ...deliveryReads(access),

    async insert(delivery) {
      // One statement: the notification is sent only if the insert commits.
      await sql.rows(
        `WITH inserted AS (
           ${insertStatement(sqlTables.deliveries, codec, t.deliveries)}
           RETURNING status
         )
         SELECT ${notifyDeliveries(sqlTables.deliveries.columns.length + 1)} FROM inserted WHERE status = 'pending'`,
        [...rowValues(sqlTables.deliveries, delivery, codec), t.schema],
      );
    },

    claimDue: (now, limit, owner, leaseMs, options = {}) =>
      claim(now, limit, owner, leaseMs, [{ ...options, limit }]),

    claimSteps: claim,

    async recordAndClaim(owner, attempts, now, limit, leaseMs, steps) {
      if (attempts.length === 0) {
        return { recorded: [], claimed: await claim(now, limit, owner, leaseMs, steps) };
      }
      const together = await recordAndClaim(owner, attempts, now, limit, leaseMs, steps);
      if (together !== null) return together;
      // A delivery given twice, or nothing to claim: the record, then the claim, in one
      // transaction.
      return sql.atomic(async (tx) => {
        const inTransaction = deliveryRepository({ access, sql: tx });
        const recorded = await inTransaction.completeAttempts(owner, attempts);
        const claimed = await inTransaction.claimSteps!(now, limit, owner, leaseMs, steps);
        return { recorded, claimed };
      });
    },

    async completeAttempts(owner, attempts) {
      const rounds = distinctRounds(attempts);
      if (rounds.length <= 1) return completeDistinct(sql, owner, attempts);
      // A delivery given twice: each round after the one before, in one transaction.
      return sql.atomic(async (tx) => {
        const applied: boolean[] = attempts.map(() => false);
        for (const round of rounds) {
          const answers = await completeDistinct(
            tx,
            owner,
            round.map((at) => attempts[at] as CompletedAttempt),
          );
          for (const [i, at] of round.entries()) applied[at] = answers[i] === true;
        }
        return applied;
      });
    },

    async cancelForSubscription(organizationId, webhookId, at) {
      // Dropping the lease keeps an in-flight attempt's completion from reviving it.
      const rows = await sql.rows(
        pendingInIdOrder(
          "webhook_id = $2 AND organization_id = $1",
          "status = 'cancelled', lease_owner = NULL, lease_expires_at = NULL, updated_at = $3",
        ),
        [organizationId, webhookId, at],
      );
      return rows.length;
    },

    async rekeyForSubscription(organizationId, webhookId, destinationKey) {
      const rows = await sql.rows(
        pendingInIdOrder("webhook_id = $2 AND organization_id = $1", "destination_key = $3"),
        [organizationId, webhookId, destinationKey],
      );
      return rows.length;
    },

    async dueNowForDestination(destinationKey, at) {
      // The rows made due notify the other engines.
      const rows = await sql.rows(
        `WITH moved AS (${pendingInIdOrder(
          "destination_key = $1 AND next_attempt_at > $2",
          "next_attempt_at = $2",
        )})
         SELECT COUNT(*)::integer AS moved, ${notifyDeliveries(3)} FROM moved HAVING COUNT(*) > 0`,
        [destinationKey, at, t.schema],
      );
      return Number((rows[0] as { moved: number } | undefined)?.moved ?? 0);
    },

    async redeliver(organizationId, id, at) {
      // One conditional write: of concurrent redeliveries and claims, one wins the row.
      const rows = await sql.rows(
        `WITH revived AS (
           UPDATE ${t.deliveries} SET ${REDELIVERED}
           WHERE id = $1 AND organization_id = $2 AND ${REDELIVERABLE}
           RETURNING id
         )
         SELECT ${notifyDeliveries(4)} FROM revived`,
        [id, organizationId, at, t.schema],
      );
      return rows.length === 1;
    },

    async requeueForSubscription(organizationId, webhookId, since, at) {
      // Locked in id order, the order a delivery engine records its batch in: no deadlock.
      const rows = await sql.rows<{ requeued: string }>(
        `WITH locked AS (
           SELECT id FROM ${t.deliveries}
           WHERE webhook_id = $1 AND organization_id = $2 AND status IN ('failed', 'cancelled')
             AND created_at >= $5
           ORDER BY id
           FOR UPDATE
         ),
         revived AS (
           UPDATE ${t.deliveries} d SET ${REDELIVERED}
           FROM locked WHERE d.id = locked.id AND ${REDELIVERABLE}
           RETURNING d.id
         )
         SELECT COUNT(*) AS requeued, ${notifyDeliveries(4)} FROM revived HAVING COUNT(*) > 0`,
        [webhookId, organizationId, at, t.schema, since],
      );
      return Number(rows[0]?.requeued ?? 0);
    },

    async failingDestinations(q) {
      // The newest `scan` failed and pending rows each, read backwards along
      // deliveries_organization_status, then grouped; each group's last attempt is its latest.
      const newest = (status: string) =>
        `(SELECT webhook_id, destination_key, destination ->> 'url' AS url, status, attempts,
            last_attempt_at, last_status_code, last_error
          FROM ${t.deliveries} WHERE organization_id = $1 AND status = '${status}'
          ORDER BY seq DESC LIMIT $4)`;
      const latest = (column: string) =>
        `(array_agg(${column} ORDER BY last_attempt_at DESC))[1] AS ${column}`;
      const rows = await sql.rows(
        `WITH failing AS (
           SELECT * FROM ${newest("failed")} failed WHERE last_attempt_at >= $2
           UNION ALL
           SELECT * FROM ${newest("pending")} pending WHERE attempts > 0
             AND (last_status_code IS NULL OR last_status_code NOT BETWEEN 200 AND 299))
         SELECT ${latest("webhook_id")}, ${latest("destination_key")}, ${latest("url")},
           count(*) FILTER (WHERE status = 'pending') AS retrying,
           count(*) FILTER (WHERE status = 'failed') AS failed,
           max(last_attempt_at) AS last_attempt_at,
           ${latest("last_status_code")}, ${latest("last_error")}
         FROM failing
         GROUP BY coalesce(webhook_id, destination_key)
         ORDER BY max(last_attempt_at) DESC, coalesce(webhook_id, destination_key)
         LIMIT $3`,
        [q.organizationId, q.since, q.limit, q.scan],
      );
      return rows.map(records.failingDestination);
    },

    async nextDueAt() {
      const rows = await sql.rows<{ due: string | null }>(
        `SELECT MIN(next_attempt_at) AS due FROM ${t.deliveries} WHERE status = 'pending'`,
      );
      return rows[0]?.due ?? null;
    },
  };
}

/**
 * The positions of `attempts` in rounds in which each delivery appears once: a delivery's n-th
 * attempt goes in round n, so its earlier attempts are recorded first. One round unless a
 * delivery is given twice.
 */
function distinctRounds(attempts: readonly CompletedAttempt[]): number[][] {
  const rounds: number[][] = [];
  const seen = new Map<string, number>();
  for (const [at, attempt] of attempts.entries()) {
    const round = seen.get(attempt.id) ?? 0;
    seen.set(attempt.id, round + 1);
    const members = rounds[round] ?? [];
    members.push(at);
    rounds[round] = members;
  }
  return rounds;
}

/**
 * The record of attempts of distinct deliveries, as the CTEs `input`, `locked`, `completed`
 * (the deliveries whose outcome applied) and `logged` (every attempt's delivery id), with the
 * lease owner in `$1` and the attempts in `$2`–`$11` (`completionValues`). Each attempt went
 * out, so it is logged whatever became of its lease; its outcome applies only while the lease
 * is still ours and the delivery still owed. The log rows take the stored deliveries' ids, not
 * the caller's. Rows are locked in id order, as every other writer of several deliveries locks
 * them, so two writers never deadlock.
 */
const completionOf = (t: Sql["tables"]) => `input AS (
       SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::integer[],
         $7::text[], $8::text[], $9::integer[], $10::integer[], $11::text[])
         WITH ORDINALITY AS i (id, status, next_attempt_at, started_at, status_code, error,
           updated_at, attempt, duration_ms, response_body, ord)
     ),
     locked AS (
       SELECT id FROM ${t.deliveries} WHERE id IN (SELECT id FROM input)
       ORDER BY id
       FOR UPDATE
     ),
     completed AS (
       UPDATE ${t.deliveries} d SET status = i.status, attempts = d.attempts + 1,
         next_attempt_at = COALESCE(i.next_attempt_at, d.next_attempt_at),
         first_attempt_at = COALESCE(d.first_attempt_at, i.started_at),
         last_attempt_at = i.started_at, lease_owner = NULL, lease_expires_at = NULL,
         last_status_code = i.status_code, last_error = i.error, updated_at = i.updated_at
       FROM input i, locked
       WHERE d.id = locked.id AND i.id = locked.id
         AND d.lease_owner = $1 AND d.status = 'pending'
       RETURNING d.id
     ),
     logged AS (
       INSERT INTO ${t.deliveryAttempts} (${insertColumns(sqlTables.deliveryAttempts)})
       SELECT d.id, d.organization_id, i.attempt, i.started_at, i.duration_ms,
         i.status_code, i.error, i.response_body
       -- Through locked, so every row the log's foreign key checks is locked first, in order.
       FROM input i JOIN locked l ON l.id = i.id JOIN ${t.deliveries} d ON d.id = l.id
       ORDER BY i.ord
       RETURNING delivery_id
     )`;

/** The values of `completionOf`'s `$2`–`$11`. */
function completionValues(attempts: readonly CompletedAttempt[]): unknown[] {
  const each = <T>(pick: (a: CompletedAttempt) => T): T[] => attempts.map(pick);
  return [
    each((a) => a.id),
    each((a) => a.next.status),
    each((a) => (a.next.status === "pending" ? a.next.nextAttemptAt : null)),
    each((a) => a.attempt.startedAt),
    each((a) => a.attempt.statusCode),
    each((a) => a.attempt.error),
    // Storage reads no clock: a delivery changed when its attempt ended.
    each((a) => isoPlus(a.attempt.startedAt, a.attempt.durationMs)),
    each((a) => a.attempt.attempt),
    each((a) => a.attempt.durationMs),
    each((a) => a.attempt.responseBody),
  ];
}

/** `completeAttempts` for deliveries that each appear once: one statement, one round trip. */
async function completeDistinct(
  sql: Sql,
  owner: string,
  attempts: readonly CompletedAttempt[],
): Promise<boolean[]> {
  if (attempts.length === 0) return [];
  // One statement, so atomic on its own, and one round trip for a whole engine pass.
  const rows = await sql.rows<{ id: string; applied: boolean }>(
    `WITH ${completionOf(sql.tables)}
     SELECT delivery_id AS id, delivery_id IN (SELECT id FROM completed) AS applied
     FROM logged`,
    [owner, ...completionValues(attempts)],
  );
  const applied = new Map(rows.map((row) => [row.id, row.applied]));
  return attempts.map((a) => applied.get(a.id) === true);
}
