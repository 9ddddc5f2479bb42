import { type MessageErrorView, toErrorView } from "../messages/message-error.js";
import type { MessageError, MessageRecord, MessageStatus, Topic } from "../ports.js";
import { shownPhone } from "../privacy/erased-text.js";

/** The JSON body of one webhook event (docs/decisions.md "Event body"). */
export interface EventBody {
  /** The delivery id: the same on every retry of this (event, destination). */
  id: string;
  topic: string;
  created_at: string;
  data: EventData | TestEventData;
}

/** What a message lifecycle event says about its message. */
export interface EventData {
  message_id: string;
  campaign_id: string;
  client_reference: string | null;
  channel: string;
  status: MessageStatus;
  /** `phone_number` is `null` once the recipient was erased. */
  recipient: { public_id: string; phone_number: string | null };
  error: MessageErrorView | null;
}

/** What the `webhook.test` event carries. */
export interface TestEventData {
  webhook_id: string;
  message: string;
}

/** The message status an event of this topic reports (`message.delivered` → `delivered`). */
const statusOfTopic = (topic: Topic): MessageStatus =>
  topic.slice("message.".length) as MessageStatus;

/** The event body of one delivery of a message lifecycle event, as posted. */
export function messageEventBody(
  deliveryId: string,
  topic: Topic,
  createdAt: string,
  message: MessageRecord,
  error: MessageError | null,
): string {
  const body: EventBody = {
    id: deliveryId,
    topic,
    created_at: createdAt,
    data: {
      message_id: message.id,
      campaign_id: message.campaignId,
      client_reference: message.clientReference,
      channel: message.channel,
      // The topic says which step this event reports, whatever the row says by now.
      status: statusOfTopic(topic),
      recipient: { public_id: message.profileId, phone_number: shownPhone(message.phoneNumber) },
      error: toErrorView(error),
    },
  };
  return JSON.stringify(body);
}

/** The body of a `webhook.test` event. */
export function testEventBody(deliveryId: string, createdAt: string, webhookId: string): string {
  const body: EventBody = {
    id: deliveryId,
    topic: "webhook.test",
    created_at: createdAt,
    data: { webhook_id: webhookId, message: "This is a test event from Tidings." },
  };
  return JSON.stringify(body);
}
