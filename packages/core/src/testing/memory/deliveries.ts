import type { DeliveryRecord, DeliveryRepository, FailingDestination } from "../../ports.js";
import { byDue } from "../../sql/delivery-order.js";
import { fairOrder } from "../../sql/fair-order.js";
import { isoAt } from "../../support/clock.js";
import { isFailingDelivery } from "../../webhooks/failing-delivery.js";
import type { MemoryScope } from "./scope.js";
import {
  assertNew,
  assignSeq,
  clone,
  createdWithin,
  ms,
  newestFirst,
  oldestFirst,
} from "./state.js";

const leaseFree = (d: DeliveryRecord, now: number): boolean =>
  d.leaseOwner === null || d.leaseExpiresAt === null || ms(d.leaseExpiresAt) <= now;

const webhookIdOf = (d: DeliveryRecord): string | null =>
  d.destination.kind === "subscription" ? d.destination.webhookId : null;

/** Whether an attempted delivery's last attempt did not answer 2xx. */
const lastAttemptFailed = (d: DeliveryRecord): boolean =>
  d.lastAttemptAt !== null &&
  (d.lastStatusCode === null || d.lastStatusCode < 200 || d.lastStatusCode > 299);

/** The failing deliveries grouped by destination, as `failingDestinations` answers them. */
function byDestination(deliveries: readonly DeliveryRecord[]): FailingDestination[] {
  const groups = new Map<string, FailingDestination>();
  for (const d of deliveries) {
    const webhookId = webhookIdOf(d);
    const key = webhookId ?? d.destinationKey;
    const group = groups.get(key) ?? {
      webhookId,
      destinationKey: d.destinationKey,
      url: null,
      retrying: 0,
      failed: 0,
      lastAttemptAt: "",
      lastStatusCode: null,
      lastError: null,
    };
    if (d.status === "pending") group.retrying += 1;
    else group.failed += 1;
    if ((d.lastAttemptAt ?? "") > group.lastAttemptAt) {
      group.destinationKey = d.destinationKey;
      group.url = d.destination.kind === "message" ? d.destination.url : null;
      group.lastAttemptAt = d.lastAttemptAt ?? "";
      group.lastStatusCode = d.lastStatusCode;
      group.lastError = d.lastError;
    }
    groups.set(key, group);
  }
  const keyOf = (g: FailingDestination) => g.webhookId ?? g.destinationKey;
  return [...groups.values()].sort((a, b) =>
    a.lastAttemptAt === b.lastAttemptAt
      ? keyOf(a) < keyOf(b)
        ? -1
        : 1
      : a.lastAttemptAt < b.lastAttemptAt
        ? 1
        : -1,
  );
}

/** Not pending, and no attempt in flight (a live lease) that could still complete. */
const redeliverable = (d: DeliveryRecord, now: number): boolean =>
  d.status !== "pending" && leaseFree(d, now);

/** Pending again, due at `at`, in a new retry window; id, payload and attempts kept. */
const redelivered = (d: DeliveryRecord, at: string): DeliveryRecord => ({
  ...d,
  status: "pending",
  nextAttemptAt: at,
  firstAttemptAt: null,
  windowStartAttempt: d.attempts,
  leaseOwner: null,
  leaseExpiresAt: null,
  updatedAt: at,
});

/** Webhook deliveries and their attempts in memory; claims are leases. */
export function memoryDeliveries(scope: MemoryScope): DeliveryRepository {
  return {
    insert: (delivery) =>
      scope.write("deliveries.insert", (s) => {
        assertNew(s.deliveries, delivery.id, "delivery");
        s.deliveries.set(delivery.id, clone(delivery));
        assignSeq(s, delivery.id);
      }),
    listPage: (q) =>
      scope.read("deliveries.listPage", (s) =>
        newestFirst(
          s,
          [...s.deliveries.values()].filter(
            (d) =>
              d.organizationId === q.organizationId &&
              (q.status === undefined || d.status === q.status) &&
              (q.failing !== true || isFailingDelivery(d)) &&
              (q.webhookId === undefined || webhookIdOf(d) === q.webhookId) &&
              (q.messageId === undefined || d.messageId === q.messageId) &&
              createdWithin(d.createdAt, q.createdAfter, q.createdBefore),
          ),
          q.beforeSeq,
          q.limit,
        ),
      ),
    failingDestinations: (q) =>
      scope.read("deliveries.failingDestinations", (s) => {
        const newest = (status: DeliveryRecord["status"]) =>
          newestFirst(
            s,
            [...s.deliveries.values()].filter(
              (d) => d.organizationId === q.organizationId && d.status === status,
            ),
            undefined,
            q.scan,
          );
        const failing = [
          ...newest("failed").filter(
            (d) => d.lastAttemptAt !== null && ms(d.lastAttemptAt) >= ms(q.since),
          ),
          ...newest("pending").filter((d) => d.attempts > 0 && lastAttemptFailed(d)),
        ];
        return byDestination(failing).slice(0, q.limit);
      }),
    get: (organizationId, id) =>
      scope.read("deliveries.get", (s) => {
        const delivery = s.deliveries.get(id);
        return delivery?.organizationId === organizationId ? delivery : null;
      }),
    listForMessage: (organizationId, messageId) =>
      scope.read("deliveries.listForMessage", (s) =>
        oldestFirst(
          [...s.deliveries.values()].filter(
            (d) => d.organizationId === organizationId && d.messageId === messageId,
          ),
          (d) => d.createdAt,
          (d) => d.id,
        ),
      ),
    claimDue: (now, limit, owner, leaseMs, options = {}) =>
      scope.write("deliveries.claimDue", (s) => {
        const at = ms(now);
        const excluded = new Set(options.excludeDestinations ?? []);
        const only = options.onlyDestinations && new Set(options.onlyDestinations);
        const offers = new Map<string, DeliveryRecord[]>();
        for (const d of s.deliveries.values()) {
          const key = d.destinationKey;
          if (d.status !== "pending" || ms(d.nextAttemptAt) > at || !leaseFree(d, at)) continue;
          if (excluded.has(key) || (only !== undefined && !only.has(key))) continue;
          offers.set(key, [...(offers.get(key) ?? []), d]);
        }
        const perDestination = options.perDestination ?? limit;
        const candidates = [...offers.values()].map((rows) =>
          oldestFirst(
            rows,
            (d) => d.nextAttemptAt,
            (d) => d.id,
          )
            .slice(0, perDestination)
            .map((d) => ({ id: d.id, organizationId: d.organizationId, due: d.nextAttemptAt, d })),
        );
        const leased = fairOrder(candidates, limit).map(({ d }) => {
          const lease = { ...d, leaseOwner: owner, leaseExpiresAt: isoAt(at + leaseMs) };
          s.deliveries.set(d.id, lease);
          return lease;
        });
        return leased.sort(byDue);
      }),
    completeAttempts: (owner, attempts) =>
      scope.write("deliveries.completeAttempts", (s) => {
        return attempts.map(({ id, attempt, next }) => {
          const stored = s.deliveries.get(id);
          if (stored === undefined) return false;
          // The attempt went out, so it is logged even when its outcome no longer applies.
          s.attempts.push({
            ...clone(attempt),
            deliveryId: id,
            organizationId: stored.organizationId,
          });
          if (stored.status !== "pending" || stored.leaseOwner !== owner) return false;
          s.deliveries.set(id, {
            ...stored,
            status: next.status,
            attempts: stored.attempts + 1,
            nextAttemptAt: next.status === "pending" ? next.nextAttemptAt : stored.nextAttemptAt,
            firstAttemptAt: stored.firstAttemptAt ?? attempt.startedAt,
            lastAttemptAt: attempt.startedAt,
            leaseOwner: null,
            leaseExpiresAt: null,
            lastStatusCode: attempt.statusCode,
            lastError: attempt.error,
            // Storage reads no clock: the delivery changed when the attempt ended.
            updatedAt: isoAt(ms(attempt.startedAt) + attempt.durationMs),
          });
          return true;
        });
      }),
    cancelForSubscription: (organizationId, webhookId, at) =>
      scope.write("deliveries.cancelForSubscription", (s) => {
        let cancelled = 0;
        for (const d of s.deliveries.values()) {
          const toSubscription =
            d.destination.kind === "subscription" && d.destination.webhookId === webhookId;
          if (d.organizationId !== organizationId || d.status !== "pending" || !toSubscription) {
            continue;
          }
          // Dropping the lease keeps an in-flight attempt's completion from reviving it.
          s.deliveries.set(d.id, {
            ...d,
            status: "cancelled",
            leaseOwner: null,
            leaseExpiresAt: null,
            updatedAt: at,
          });
          cancelled += 1;
        }
        return cancelled;
      }),
    rekeyForSubscription: (organizationId, webhookId, destinationKey) =>
      scope.write("deliveries.rekeyForSubscription", (s) => {
        let moved = 0;
        for (const d of s.deliveries.values()) {
          if (d.organizationId !== organizationId || webhookIdOf(d) !== webhookId) continue;
          if (d.status !== "pending") continue;
          s.deliveries.set(d.id, { ...d, destinationKey });
          moved += 1;
        }
        return moved;
      }),
    dueNowForDestination: (destinationKey, at) =>
      scope.write("deliveries.dueNowForDestination", (s) => {
        let moved = 0;
        for (const d of s.deliveries.values()) {
          if (d.destinationKey !== destinationKey || d.status !== "pending") continue;
          if (ms(d.nextAttemptAt) <= ms(at)) continue;
          s.deliveries.set(d.id, { ...d, nextAttemptAt: at });
          moved += 1;
        }
        return moved;
      }),
    redeliver: (organizationId, id, at) =>
      scope.write("deliveries.redeliver", (s) => {
        const stored = s.deliveries.get(id);
        if (stored?.organizationId !== organizationId || !redeliverable(stored, ms(at))) {
          return false;
        }
        s.deliveries.set(id, redelivered(stored, at));
        return true;
      }),
    requeueForSubscription: (organizationId, webhookId, since, at) =>
      scope.write("deliveries.requeueForSubscription", (s) => {
        let requeued = 0;
        for (const d of s.deliveries.values()) {
          if (
            d.organizationId !== organizationId ||
            webhookIdOf(d) !== webhookId ||
            (d.status !== "failed" && d.status !== "cancelled") ||
            ms(d.createdAt) < ms(since) ||
            !redeliverable(d, ms(at))
          ) {
            continue;
          }
          s.deliveries.set(d.id, redelivered(d, at));
          requeued += 1;
        }
        return requeued;
      }),
    listAttempts: (organizationId, deliveryId) =>
      scope.read("deliveries.listAttempts", (s) =>
        s.attempts
          .filter((a) => a.organizationId === organizationId && a.deliveryId === deliveryId)
          .sort((a, b) => a.attempt - b.attempt),
      ),
    nextDueAt: () =>
      scope.read("deliveries.nextDueAt", (s) => {
        let earliest: string | null = null;
        for (const d of s.deliveries.values()) {
          if (d.status !== "pending") continue;
          if (earliest === null || ms(d.nextAttemptAt) < ms(earliest)) earliest = d.nextAttemptAt;
        }
        return earliest;
      }),
  };
}
