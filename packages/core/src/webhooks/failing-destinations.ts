import { ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import { isoAt } from "../support/clock.js";
import { useCase } from "../support/result.js";
import { shownUrl } from "../support/shown-url.js";
import { subscriptionsById } from "./delivery-log.js";

/** A destination whose deliveries fail, as the console's Overview shows it. */
export interface FailingDestinationView {
  /** The subscription's id; `null` for messages' own `webhook_url`s to one origin. */
  webhook_id: string | null;
  /** Scheme, host and path only (`null` when the subscription was deleted). */
  url: string | null;
  /** Deliveries being retried after failed attempts. */
  retrying: number;
  /** Deliveries that failed for good within the period. */
  failed: number;
  last_attempt_at: string;
  last_status_code: number | null;
  last_error: string | null;
}

/** How many of the newest failed, and of the newest pending, deliveries are looked at. */
export const FAILING_DESTINATIONS_SCAN = 10_000;

/**
 * The organization's webhook destinations whose deliveries fail: those being retried now and
 * those that failed for good in the last `hours` hours (24), the most recent failure first, at
 * most `limit` (10). Only the newest 10,000 failed and 10,000 pending deliveries are looked
 * at, so the answer costs the same however long the organization's history is.
 */
export function listFailingDestinations(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  options: { hours?: number; limit?: number } = {},
): ResultAsync<FailingDestinationView[], DomainError> {
  return useCase("listFailingDestinations", async () => {
    const since = isoAt(deps.clock.now() - (options.hours ?? 24) * 60 * 60 * 1000);
    const found = await deps.storage.deliveries.failingDestinations({
      organizationId: actor.organizationId,
      since,
      limit: options.limit ?? 10,
      scan: FAILING_DESTINATIONS_SCAN,
    });
    const subscriptions = found.some((d) => d.webhookId !== null)
      ? await subscriptionsById(deps, actor)
      : new Map();
    return ok(
      found.map((d) => {
        const url = d.webhookId === null ? d.url : (subscriptions.get(d.webhookId)?.url ?? null);
        return {
          webhook_id: d.webhookId,
          url: url === null ? null : shownUrl(url),
          retrying: d.retrying,
          failed: d.failed,
          last_attempt_at: d.lastAttemptAt,
          last_status_code: d.lastStatusCode,
          last_error: d.lastError,
        };
      }),
    );
  });
}
