import { err, ok, type Result } from "neverthrow";
import type { ConflictError } from "../errors.js";
import type { WebhookSubscriptionRecord, WebhookTopic } from "../ports.js";

/** At most this many active subscriptions per organization (docs/decisions.md "Webhook subscription"). */
export const MAX_ACTIVE_WEBHOOKS = 5;
/** At most this many subscriptions, active or not, per organization (docs/decisions.md). */
export const MAX_WEBHOOK_SUBSCRIPTIONS = 100;

/** What is about to be active: a new subscription has no stored id yet to exclude. */
export interface Candidate {
  id: string | null;
  topics: readonly WebhookTopic[];
}

/**
 * Ok when `candidate` may be active beside the organization's other subscriptions: fewer
 * than 5 other active ones, and none of them sharing a topic. Inactive ones count toward
 * neither. Call it after `lockOrganization`, inside the transaction that writes the change.
 */
export function checkCanActivate(
  candidate: Candidate,
  subscriptions: readonly WebhookSubscriptionRecord[],
): Result<void, ConflictError> {
  const activeOthers = subscriptions.filter((s) => s.status === "active" && s.id !== candidate.id);
  if (activeOthers.length >= MAX_ACTIVE_WEBHOOKS) {
    return err({
      type: "conflict",
      code: "webhook_limit_reached",
      message: `The organization already has ${MAX_ACTIVE_WEBHOOKS} active webhooks (${activeOthers
        .map((s) => s.id)
        .join(", ")}); deactivate one first.`,
      conflicts: activeOthers.map((s) => ({ id: s.id, reason: "active" })),
    });
  }
  const overlaps = activeOthers.flatMap((s) =>
    s.topics
      .filter((topic) => candidate.topics.includes(topic))
      .map((topic) => ({ id: s.id, topic })),
  );
  if (overlaps.length > 0) {
    return err({
      type: "conflict",
      code: "webhook_topic_overlap",
      message: `Another active webhook already subscribes to these topics: ${overlaps
        .map((o) => `${o.topic} (${o.id})`)
        .join(", ")}.`,
      conflicts: overlaps.map((o) => ({ id: o.id, reason: `also subscribes to ${o.topic}` })),
      issues: overlaps.map((o) => ({
        path: `topics[${candidate.topics.indexOf(o.topic)}]`,
        message: `${o.topic} is already subscribed by the active webhook ${o.id}.`,
        rule: "topic_overlap",
      })),
    });
  }
  return ok(undefined);
}

/** Ok while the organization has room for one more subscription. */
export function checkCanAdd(
  subscriptions: readonly WebhookSubscriptionRecord[],
): Result<void, ConflictError> {
  if (subscriptions.length < MAX_WEBHOOK_SUBSCRIPTIONS) return ok(undefined);
  return err({
    type: "conflict",
    code: "webhook_subscription_limit",
    message: `The organization already has ${MAX_WEBHOOK_SUBSCRIPTIONS} webhook subscriptions; delete one first.`,
  });
}
