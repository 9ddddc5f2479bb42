import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import type { WebhookSubscriptionChanges, WebhookSubscriptionRecord } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { useCase } from "../support/result.js";
import { destinationKey } from "./delivery-destination.js";
import { changeWebhook, webhookNotFound } from "./find-webhook.js";
import { checkCanActivate } from "./subscription-rules.js";
import { parseWebhookInput, updateWebhookInput } from "./webhook-input.js";
import { toWebhookView, type WebhookView } from "./webhook-view.js";

const sameTopics = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((topic) => b.includes(topic));

/**
 * Partially updates a subscription (PATCH): url, topics, status, description. The active-limit
 * and overlap rules are checked, under the organization's lock, when it becomes active or when
 * an active one changes topics. Deactivating cancels its pending deliveries; activating clears
 * the engine's `disabledReason`; a new URL's host takes over the pending deliveries.
 */
export function updateWebhook(
  deps: Pick<Deps, "storage" | "clock" | "urlPolicy">,
  actor: Actor,
  webhookId: string,
  input: unknown,
): ResultAsync<WebhookView, DomainError> {
  return useCase("updateWebhook", async () => {
    const parsed = await parseWebhookInput(deps.urlPolicy, updateWebhookInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const patch = parsed.value;
    return changeWebhook(deps.storage, actor.organizationId, webhookId, async (tx, current) => {
      const next: WebhookSubscriptionRecord = {
        ...current,
        url: patch.url ?? current.url,
        topics: patch.topics ?? current.topics,
        status: patch.status ?? current.status,
        description: patch.description === undefined ? current.description : patch.description,
      };
      const topicsChanged = !sameTopics(next.topics, current.topics);
      const changed =
        topicsChanged ||
        next.url !== current.url ||
        next.status !== current.status ||
        next.description !== current.description;
      if (!changed) return ok(toWebhookView(current));

      const activating = next.status === "active" && current.status !== "active";
      if (activating || (next.status === "active" && topicsChanged)) {
        const allowed = checkCanActivate(next, await tx.webhooks.list(actor.organizationId));
        if (allowed.isErr()) return err(allowed.error);
      }
      const now = isoAt(deps.clock.now());
      next.updatedAt = now;
      // Only what this PATCH changes is written: never the secret it read.
      const changes: WebhookSubscriptionChanges = { updatedAt: now };
      if (next.url !== current.url) changes.url = next.url;
      if (topicsChanged) changes.topics = next.topics;
      if (next.status !== current.status) changes.status = next.status;
      if (activating && current.disabledReason !== null) {
        // Turned on again by hand: the engine's reason and its count of failing time start over.
        changes.disabledReason = next.disabledReason = null;
        changes.failingSince = next.failingSince = null;
      }
      if (next.description !== current.description) changes.description = next.description;
      if (!(await tx.webhooks.update(actor.organizationId, webhookId, changes))) {
        return err(webhookNotFound(webhookId));
      }
      if (current.status === "active" && next.status === "inactive") {
        await tx.deliveries.cancelForSubscription(actor.organizationId, webhookId, now);
      } else if (
        destinationKey(actor.organizationId, next.url) !==
        destinationKey(actor.organizationId, current.url)
      ) {
        // Its pending deliveries now go to another host: count them against that one.
        await tx.deliveries.rekeyForSubscription(
          actor.organizationId,
          webhookId,
          destinationKey(actor.organizationId, next.url),
        );
      }
      return ok(toWebhookView(next));
    });
  });
}
