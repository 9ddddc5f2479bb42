import type { Deps } from "../deps.js";
import { isoAt } from "../support/clock.js";
import type { AttemptResult } from "./attempt-delivery.js";

/** How many of the subscriptions known to have no failing attempt are remembered. */
const HEALTHY_SUBSCRIPTIONS_KEPT = 10_000;

/** A subscription turned off because its attempts kept failing, as the engine logs it. */
export interface DisabledSubscription {
  organizationId: string;
  webhookId: string;
  failingSince: string;
  /** Its pending deliveries, now cancelled (recover brings them back). */
  cancelled: number;
}

/**
 * Keeps each subscription's failing time from the attempts an engine records, and turns off one
 * whose attempts have all failed for `config.webhookDisableAfterMs`: `inactive`, with
 * `disabledReason: "failing"`, its pending deliveries cancelled. A success clears the failing
 * time; subscriptions known to have none are not written to again while they keep succeeding.
 */
export function failingSubscriptions(
  deps: Pick<Deps, "storage" | "clock" | "config">,
  onDisabled: (disabled: DisabledSubscription) => void,
) {
  const healthy = new Set<string>();

  const disable = async (organizationId: string, webhookId: string): Promise<void> => {
    const now = deps.clock.now();
    const failingBefore = isoAt(now - deps.config.webhookDisableAfterMs);
    // Under the organization's lock, like every change of its subscriptions.
    const disabled = await deps.storage.transaction(async (tx) => {
      await tx.webhooks.lockOrganization(organizationId);
      const record = await tx.webhooks.disableFailing(webhookId, failingBefore, isoAt(now));
      if (record === null) return null;
      const cancelled = await tx.deliveries.cancelForSubscription(
        organizationId,
        webhookId,
        isoAt(now),
      );
      return { failingSince: record.failingSince ?? failingBefore, cancelled };
    });
    if (disabled !== null) onDisabled({ organizationId, webhookId, ...disabled });
  };

  return {
    /** Notes the latest attempt of each subscription in `batch`, a batch just recorded. */
    async note(batch: readonly AttemptResult[]): Promise<void> {
      const latest = new Map<string, AttemptResult>();
      for (const result of batch) {
        const { destination } = result.delivery;
        // An attempt that went nowhere (the subscription is gone) says nothing of its receiver.
        if (destination.kind !== "subscription" || result.url === null) continue;
        const seen = latest.get(destination.webhookId);
        if (seen === undefined || seen.attempt.startedAt <= result.attempt.startedAt) {
          latest.set(destination.webhookId, result);
        }
      }
      for (const [webhookId, result] of latest) {
        const succeeded = result.next.status === "delivered";
        if (succeeded && healthy.has(webhookId)) continue;
        const failingSince = await deps.storage.webhooks.noteAttempt(
          webhookId,
          result.attempt.startedAt,
          succeeded,
        );
        if (failingSince === null) {
          if (healthy.size >= HEALTHY_SUBSCRIPTIONS_KEPT) healthy.clear();
          healthy.add(webhookId);
          continue;
        }
        healthy.delete(webhookId);
        if (deps.clock.now() - Date.parse(failingSince) >= deps.config.webhookDisableAfterMs) {
          await disable(result.delivery.organizationId, webhookId);
        }
      }
    },
  };
}
