import type {
  Category,
  Channel,
  MessageError,
  MessageEventRecord,
  MessageRecord,
  MessageStatus,
  Topic,
} from "../ports.js";
import { shownUrl } from "../support/shown-url.js";

/** A message as the core API shows it. */
export interface MessageView {
  message_id: string;
  campaign_id: string;
  category: Category;
  /** The channel that carries (or last tried to carry) the message. */
  channel: Channel;
  status: MessageStatus;
  recipient: { public_id: string; phone_number: string };
  client_reference: string | null;
  /** Scheme, host and path only: a query string may carry the receiver's token. */
  webhook_url: string | null;
  error: MessageError | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** One lifecycle event of a message. */
export interface MessageEventView {
  event_id: string;
  topic: Topic;
  channel: Channel;
  error: MessageError | null;
  created_at: string;
}

/** The view of a stored message (the rendered body stays internal). */
export function toMessageView(message: MessageRecord): MessageView {
  return {
    message_id: message.id,
    campaign_id: message.campaignId,
    category: message.category,
    channel: message.channel,
    status: message.status,
    recipient: { public_id: message.profileId, phone_number: message.phoneNumber },
    client_reference: message.clientReference,
    webhook_url: message.webhookUrl === null ? null : shownUrl(message.webhookUrl),
    error: message.error,
    expires_at: message.expiresAt,
    created_at: message.createdAt,
    updated_at: message.updatedAt,
  };
}

/** The view of a stored event. */
export const toMessageEventView = (event: MessageEventRecord): MessageEventView => ({
  event_id: event.id,
  topic: event.topic,
  channel: event.channel,
  error: event.error,
  created_at: event.createdAt,
});

/** A message with every lifecycle event, oldest first (`GET /v1/messages/{message_id}`). */
export interface MessageWithEventsView extends MessageView {
  events: MessageEventView[];
}
