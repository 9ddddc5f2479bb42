import type { Deps } from "../deps.js";
import type { DeliveryRecord, Repositories, WebhookTopic } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { destinationKey } from "../webhooks/delivery-destination.js";
import { notYetAttempted } from "../webhooks/outbox.js";

/** What `profile.consent_changed` says. */
export interface ConsentChangedData {
  public_id: string | null;
  phone_number: string;
  channel: "viber" | "sms";
  marketing_consent: boolean;
  suppressed: boolean;
  source: string;
  keyword: string | null;
  provider: string | null;
  /** Why, when someone said (a suppression lifted through the API needs a note). */
  note: string | null;
  changed_at: string;
}

/** What a consent change is about and who made it, for `consentChangedData`. */
export interface ConsentChangeFacts {
  profileId: string | null;
  phoneNumber: string;
  channel: "viber" | "sms";
  marketingConsent: boolean;
  suppressed: boolean;
  source: string;
  keyword?: string | null;
  provider?: string | null;
  note?: string | null;
  changedAt: string;
}

/** The `data` of `profile.consent_changed`, the same whatever made the change. */
export const consentChangedData = (facts: ConsentChangeFacts): ConsentChangedData => ({
  public_id: facts.profileId,
  phone_number: facts.phoneNumber,
  channel: facts.channel,
  marketing_consent: facts.marketingConsent,
  suppressed: facts.suppressed,
  source: facts.source,
  keyword: facts.keyword ?? null,
  provider: facts.provider ?? null,
  note: facts.note ?? null,
  changed_at: facts.changedAt,
});

/** What `message.received` says. */
export interface MessageReceivedData {
  inbound_id: string;
  channel: "viber" | "sms";
  from: string;
  to: string;
  text: string;
  keyword_class: "opt_out" | "opt_in" | "help" | null;
  public_id: string | null;
  provider: string;
  received_at: string;
}

/**
 * Records an event that is about no message (a consent change, an inbound message): one pending
 * delivery, due now, to each active subscription of the organization that takes `topic`, in the
 * usual body `{ id, topic, created_at, data }`. Never to a message's own `webhook_url`. Call it
 * inside the transaction of the change, so the deliveries commit with it.
 */
export async function recordOrganizationEvent(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  organizationId: string,
  topic: WebhookTopic,
  data: ConsentChangedData | MessageReceivedData,
): Promise<number> {
  const subscriptions = (await tx.webhooks.list(organizationId)).filter(
    (s) => s.status === "active" && s.topics.includes(topic),
  );
  if (subscriptions.length === 0) return 0;
  const now = isoAt(deps.clock.now());
  const eventId = deps.ids.uuidv7();
  for (const subscription of subscriptions) {
    const id = deps.ids.uuidv7();
    const delivery: DeliveryRecord = {
      id,
      organizationId,
      eventId,
      messageId: null,
      topic,
      destination: { kind: "subscription", webhookId: subscription.id },
      destinationKey: destinationKey(organizationId, subscription.url),
      payload: JSON.stringify({ id, topic, created_at: now, data }),
      ...notYetAttempted(now),
    };
    await tx.deliveries.insert(delivery);
  }
  return subscriptions.length;
}

/** Whether any active subscription of the organization takes `topic`. */
export async function anyoneListens(
  tx: Repositories,
  organizationId: string,
  topic: WebhookTopic,
): Promise<boolean> {
  const subscriptions = await tx.webhooks.list(organizationId);
  return subscriptions.some((s) => s.status === "active" && s.topics.includes(topic));
}
