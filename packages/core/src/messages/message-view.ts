import { type LinkView, toLinkViews } from "../links/link-view.js";
import type {
  Category,
  Channel,
  LinkRecord,
  MessageEventRecord,
  MessagePriceRecord,
  MessageRecord,
  MessageStatus,
  ProviderAttempt,
  Topic,
} from "../ports.js";
import { shownPhone } from "../privacy/erased-text.js";
import { shownUrl } from "../support/shown-url.js";
import { type MessageErrorView, toErrorView } from "./message-error.js";
import { type LegPriceView, type MessagePriceView, priceViews } from "./message-prices.js";
import { legOf } from "./provider-legs.js";

/** A message as the core API shows it. */
export interface MessageView {
  message_id: string;
  campaign_id: string;
  category: Category;
  /** The channel that carries (or last tried to carry) the message. */
  channel: Channel;
  status: MessageStatus;
  /** `phone_number` is `null` once the recipient was erased. */
  recipient: { public_id: string; phone_number: string | null };
  client_reference: string | null;
  /** Scheme, host and path only: a query string may carry the receiver's token. */
  webhook_url: string | null;
  error: MessageErrorView | null;
  /** The provider of the message's current leg (`sandbox`, `twilio`, …), or `null`. */
  provider: string | null;
  /** The provider's id of the current leg, once it answered one; `null` on the sandbox. */
  provider_message_id: string | null;
  /**
   * The providers of a failover list tried before `provider` on the current leg, in order,
   * and why each did not carry it; `[]` when the first one did.
   */
  tried_before: ProviderAttempt[];
  /**
   * The TTL, in seconds, the current leg's provider was given when it clamped the asked one to
   * its range (Infobip at most 48 h); `null` when it took it as asked.
   */
  provider_ttl_seconds: number | null;
  /** Its tracked links, in the order of its text; `[]` when none. */
  links: LinkView[];
  /**
   * What the message cost, as its providers reported it: its legs' prices summed, when they
   * share one currency; `null` when no leg reported a price, or they are in several currencies.
   */
  price: MessagePriceView | null;
  /** Each leg's reported price, Viber first; `[]` when none. */
  prices: LegPriceView[];
  /** When a message held for its sending window or `send_at` is (or was) released, else `null`. */
  scheduled_for: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** One lifecycle event of a message. */
export interface MessageEventView {
  event_id: string;
  topic: Topic;
  channel: Channel;
  error: MessageErrorView | null;
  created_at: string;
}

/**
 * The view of a stored message (the rendered body stays internal), with its tracked links
 * under the link base `linkBase` and its legs' reported prices.
 */
export function toMessageView(
  message: MessageRecord,
  links: readonly LinkRecord[] = [],
  linkBase: string | null = null,
  prices: readonly MessagePriceRecord[] = [],
): MessageView {
  const leg = legOf(message, message.channel);
  return {
    message_id: message.id,
    campaign_id: message.campaignId,
    category: message.category,
    channel: message.channel,
    status: message.status,
    recipient: { public_id: message.profileId, phone_number: shownPhone(message.phoneNumber) },
    client_reference: message.clientReference,
    webhook_url: message.webhookUrl === null ? null : shownUrl(message.webhookUrl),
    error: toErrorView(message.error),
    provider: leg?.provider ?? null,
    provider_message_id: leg?.providerMessageId ?? null,
    tried_before: (leg?.notes?.triedBefore ?? []).map(({ provider, outcome }) => ({
      provider,
      outcome,
    })),
    provider_ttl_seconds: leg?.notes?.clampedTtlSeconds ?? null,
    links: toLinkViews(message, links, linkBase),
    ...priceViews(prices),
    scheduled_for: message.scheduledFor,
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
  error: toErrorView(event.error),
  created_at: event.createdAt,
});

/** A message with every lifecycle event, oldest first (`GET /v1/messages/{message_id}`). */
export interface MessageWithEventsView extends MessageView {
  events: MessageEventView[];
}
