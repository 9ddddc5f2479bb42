import type { Deps } from "../deps.js";
import type {
  DeliveryDestination,
  DeliveryRecord,
  MessageError,
  MessageEventRecord,
  MessageRecord,
  Repositories,
  Topic,
} from "../ports.js";
import { isoAt } from "../support/clock.js";
import { destinationKey } from "./delivery-destination.js";
import { messageEventBody } from "./event-body.js";

/** The state of a new delivery, created at `now`: pending and due, never attempted nor leased. */
export const notYetAttempted = (now: string) =>
  ({
    status: "pending",
    attempts: 0,
    nextAttemptAt: now,
    firstAttemptAt: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    lastStatusCode: null,
    lastError: null,
    lastAttemptAt: null,
    windowStartAttempt: 0,
    createdAt: now,
    updatedAt: now,
  }) satisfies Partial<DeliveryRecord>;

/** Where one delivery goes, with the key of its destination (see `destinationKey`). */
export interface Route {
  destination: DeliveryDestination;
  destinationKey: string;
}

/**
 * Where an event of this message goes, decided now: the message's own `webhook_url` strictly
 * wins; otherwise every active subscription of the organization whose topics include it.
 */
export async function routeEvent(
  tx: Repositories,
  message: MessageRecord,
  topic: Topic,
): Promise<Route[]> {
  const { organizationId, webhookUrl } = message;
  if (webhookUrl !== null) {
    return [
      {
        destination: { kind: "message", url: webhookUrl, apiKeyId: message.apiKeyId },
        destinationKey: destinationKey(organizationId, webhookUrl),
      },
    ];
  }
  const subscriptions = await tx.webhooks.list(organizationId);
  return subscriptions
    .filter((s) => s.status === "active" && s.topics.includes(topic))
    .map((s) => ({
      destination: { kind: "subscription", webhookId: s.id },
      destinationKey: destinationKey(organizationId, s.url),
    }));
}

/**
 * Records a message event and its outbox rows: one pending delivery per destination, due now.
 * The routes are read first; the event and its deliveries are then stored in one call. Call it
 * inside the transaction that changes the message, so the event and its deliveries commit
 * together with the change or not at all.
 */
export async function recordEvent(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  message: MessageRecord,
  topic: Topic,
  error: MessageError | null,
): Promise<MessageEventRecord> {
  const now = isoAt(deps.clock.now());
  const event: MessageEventRecord = {
    id: deps.ids.uuidv7(),
    organizationId: message.organizationId,
    messageId: message.id,
    topic,
    channel: message.channel,
    error,
    createdAt: now,
  };
  const routes = await routeEvent(tx, message, topic);
  const deliveries = routes.map(({ destination, destinationKey }): DeliveryRecord => {
    const id = deps.ids.uuidv7();
    return {
      id,
      organizationId: message.organizationId,
      eventId: event.id,
      messageId: message.id,
      topic,
      destination,
      destinationKey,
      payload: messageEventBody(id, topic, now, message, error),
      ...notYetAttempted(now),
    };
  });
  await tx.messages.insertEvent(event, deliveries);
  return event;
}
