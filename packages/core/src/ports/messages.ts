/**
 * Messages, their events, provider legs and tracked links.
 * The conventions every port follows are in `../ports.ts`.
 */

import type { Category, Channel } from "./campaigns.js";
import type { Sequenced } from "./time-and-ids.js";
import type { DeliveryRecord, Topic } from "./webhooks.js";

/**
 * `scheduled`: held until its release time; `releasing`: taken by one process for the hand-off
 * (a compare-and-set from `scheduled`); `cancelled`: withdrawn before its release.
 */
export type MessageStatus =
  | "scheduled"
  | "releasing"
  | "sent"
  | "delivered"
  | "seen"
  | "clicked"
  | "failed"
  | "expired"
  | "cancelled";

/**
 * Why a message failed. `provider` names the provider of the leg that failed (`sandbox`,
 * `twilio`, …) and `provider_code` is that provider's own code for it, as a string; both are
 * absent on errors stored before they existed and on failures no provider was asked about, and
 * every view shows them as `null` then.
 */
export interface MessageError {
  code: string;
  message: string;
  provider?: string | null | undefined;
  provider_code?: string | null | undefined;
}

export interface MessageRecord {
  id: string;
  organizationId: string;
  apiKeyId: string;
  campaignId: string;
  profileId: string;
  phoneNumber: string;
  category: Category;
  /** The channel that carries (or last tried to carry) the message. */
  channel: Channel;
  /** Whether falling back to SMS is allowed for this message (campaign setting and consent). */
  smsFallbackAllowed: boolean;
  sender: string;
  body: string;
  clientReference: string | null;
  /** Per-message webhook destination; when set, every event goes only there. */
  webhookUrl: string | null;
  status: MessageStatus;
  error: MessageError | null;
  /** When the message expires if it is not delivered by then. */
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  /**
   * Each leg's provider and the provider's id of it. The leg of the campaign's channel names
   * its provider from the start; an SMS leg of a fallback once it was handed over. The id is
   * `null` until the provider answered one (the sandbox never does).
   */
  viberProvider: string | null;
  viberProviderMessageId: string | null;
  smsProvider: string | null;
  smsProviderMessageId: string | null;
  /** What each leg's view says besides its provider; `null` when nothing (see `LegNotes`). */
  viberLegNotes: LegNotes | null;
  smsLegNotes: LegNotes | null;
  /**
   * The sender the SMS leg actually went out from, as the provider's answer or report gave it,
   * kept only when it is not `sender` (a Twilio Messaging Service picks a number of its pool;
   * a provider may spell the number its own way): inbound ownership reads it. `null` when no
   * provider said otherwise.
   */
  smsSentFrom: string | null;
  /**
   * When the SMS of a fallback after the fact is due (or, once a worker took the job, when its
   * hold on it ends); `null` when no such job is pending.
   */
  fallbackDueAt: string | null;
  /** When a held message is (or was) released; `null` for a message sent at its request. */
  scheduledFor: string | null;
}

/** A tracked link as a send stores it: a short code standing for one URL of one message. */
export interface NewLink {
  /** 12 random base62 characters; the link is `{link base}/l/{code}`. */
  code: string;
  messageId: string;
  organizationId: string;
  /**
   * The URL as the rendered text had it, params filled in: always a trackable `http`/`https`
   * URL. A SQL storage fails the read of a row whose URL has not the shape of one.
   */
  originalUrl: string;
  createdAt: string;
}

/** A tracked link with its counted clicks. */
export interface LinkRecord extends NewLink {
  clicks: number;
  firstClickedAt: string | null;
  lastClickedAt: string | null;
}

/**
 * What one leg of a message cost, as its provider reported it: at most one per leg (the first
 * report that carried a price). Kept beside the message, never on the send path.
 */
export interface MessagePriceRecord {
  messageId: string;
  organizationId: string;
  channel: Channel;
  provider: string;
  /** The amount in millionths of `currency`'s unit, never negative. */
  amountMicros: number;
  /** ISO 4217, upper case. */
  currency: string;
  /** The recipient number's country (libphonenumber `max` region), `null` when none. */
  country: string | null;
  reportedAt: string;
}

/** One line of `MessageRepository.spendByCountry`: what the legs reported since cost. */
export interface CountrySpend {
  /** `null`: numbers of no known country. */
  country: string | null;
  currency: string;
  amountMicros: number;
  /** How many legs reported a price. */
  legs: number;
}

/** One line of `MessageRepository.countByPrefix`. */
export interface MessagePrefixCount {
  /** The first characters of the messages' numbers (`""` for erased ones). */
  prefix: string;
  /** One of those numbers (the least), whose country stands for the prefix's. */
  sample: string;
  count: number;
}

/** One leg of a message on one provider: who carries it, and the provider's id for it. */
export interface ProviderLeg {
  provider: string;
  /** `null` when the provider gave none (yet). */
  providerMessageId: string | null;
  /** What the hand-off of the leg noted; absent or `null` when nothing. */
  notes?: LegNotes | null | undefined;
}

/** Why a provider provably did not take a message (see `DispatchResult.notTaken`). */
export type NotTaken = "unreachable" | "circuit_open" | "unauthorized" | "rate_limited";

/**
 * A provider of a failover list that was tried and did not carry the message: `outcome` is
 * its `NotTaken`, or `unavailable` when it timed out or answered 5xx and the list failed over
 * anyway (`TIDINGS_FAILOVER_ON_TIMEOUT=1`: it may have taken it).
 */
export interface ProviderAttempt {
  /** `TIDINGS_PROVIDER`'s value of the provider: `twilio`. */
  provider: string;
  outcome: NotTaken | "unavailable";
}

/**
 * What the hand-off of a leg noted besides its provider: the providers of a failover list it
 * went past, and the TTL its provider clamped the asked one to. Stored only when one of them
 * says something.
 */
export interface LegNotes {
  /** The providers tried before the leg's own, in order, and why each did not carry it. */
  triedBefore: ProviderAttempt[];
  /** The TTL the leg's provider was given when it clamped the asked one; `null` when it did not. */
  clampedTtlSeconds: number | null;
}

export interface MessageEventRecord {
  id: string;
  organizationId: string;
  messageId: string;
  topic: Topic;
  channel: Channel;
  error: MessageError | null;
  createdAt: string;
}

export interface MessageListQuery {
  organizationId: string;
  status?: MessageStatus | undefined;
  campaignId?: string | undefined;
  /** Exact match. */
  clientReference?: string | undefined;
  /** Exact E.164 match. */
  phoneNumber?: string | undefined;
  /** Only messages created strictly after this instant (ISO 8601 UTC, as stored). */
  createdAfter?: string | undefined;
  /** Only messages created strictly before this instant. */
  createdBefore?: string | undefined;
  /** Only rows with `seq` less than this (the next page of a newest-first list). */
  beforeSeq?: number | undefined;
  limit: number;
}

export interface MessageRepository {
  insert(message: MessageRecord): Promise<void>;
  /**
   * The organization's messages matching every filter present, newest first (`seq`
   * descending), at most `limit`. Each filter has an index, so a page stays fast with millions
   * of messages.
   */
  listPage(query: MessageListQuery): Promise<Sequenced<MessageRecord>[]>;
  get(organizationId: string, id: string): Promise<MessageRecord | null>;
  /** By id alone, for provider reports and the expiry sweep. */
  getById(id: string): Promise<MessageRecord | null>;
  /**
   * Compare-and-set of the lifecycle: writes `changes` only while the stored status is still
   * `expectedStatus`. `false` when another writer moved it first (the caller re-reads).
   */
  transition(
    id: string,
    expectedStatus: MessageStatus,
    changes: Pick<MessageRecord, "status" | "channel" | "error" | "updatedAt">,
  ): Promise<boolean>;
  /**
   * Moves the message along its lifecycle in one conditional write: writes `changes` only while
   * the stored status is one of `from` (none: nothing is written), so of concurrent writers
   * making the same move exactly one does. `error` is written when present (`null` clears
   * it); absent, the stored error stays. By id alone, like `getById`: no organization is
   * checked. Answers the whole record as written, or `null` when nothing was (unknown id, or
   * a status not in `from`); the caller reads to tell which.
   */
  advance(
    id: string,
    from: readonly MessageStatus[],
    changes: MessageAdvance,
  ): Promise<MessageRecord | null>;
  /**
   * Writes one leg's provider, provider message id and notes (the `viber…` or `sms…` fields of
   * `channel`; absent notes write `null`), whatever the status. `false` when the message is unknown.
   */
  recordLeg(id: string, channel: Channel, leg: ProviderLeg): Promise<boolean>;
  /**
   * Writes the sender the message's SMS leg actually went out from (`smsSentFrom`), unless it is
   * stored already. `false` when nothing was written (unknown id, or the same sender).
   */
  recordSentFrom(id: string, sentFrom: string): Promise<boolean>;
  /**
   * Moves a Viber message over to SMS and makes its SMS due at `dueAt`, in one conditional
   * write: only while it is `sent`, on `viber` and without a pending fallback (the caller checks
   * that it may fall back). Answers the record as written, or `null` when nothing was.
   */
  scheduleFallback(id: string, dueAt: string, updatedAt: string): Promise<MessageRecord | null>;
  /** Ids of messages whose fallback is due at or before `now`, the longest due first. */
  listFallbacksDue(now: string, limit: number): Promise<string[]>;
  /**
   * Compare-and-set of a message's `fallbackDueAt`: writes `to` (`null` ends the job) only while
   * it is still `from`, so of workers racing for one job exactly one takes it.
   */
  moveFallback(id: string, from: string, to: string | null): Promise<boolean>;
  /**
   * Ids of held messages in `status` (`scheduled`: due for release; `releasing`: taken for
   * release and possibly stuck) whose `scheduledFor` is at or before `now`, the longest due
   * first.
   */
  listScheduledDue(
    status: "scheduled" | "releasing",
    now: string,
    limit: number,
  ): Promise<string[]>;
  /** Ids of messages still `sent` whose `expiresAt` is at or before `now`, oldest first. */
  listExpired(now: string, limit: number): Promise<string[]>;
  /**
   * Stores a lifecycle event together with its outbox deliveries (`[]`: none), all or none: when
   * any one is refused (a taken id) nothing is stored, inside a transaction or not. One
   * statement on PostgreSQL; pending deliveries wake `listenForDeliveries` as
   * `DeliveryRepository.insert` does, only once they commit.
   */
  insertEvent(event: MessageEventRecord, deliveries: readonly DeliveryRecord[]): Promise<void>;
  /** A message's events in the order they happened. */
  listEvents(organizationId: string, messageId: string): Promise<MessageEventRecord[]>;
  /**
   * How many of the organization's messages created at or after `since` are in each status
   * now, by the UTC hour of their creation (`hour` is `YYYY-MM-DDTHH`, the first 13 characters
   * of `createdAt`); only non-zero counts, in no particular order.
   */
  countByHour(organizationId: string, since: string): Promise<MessageHourCount[]>;
  /**
   * How many of the organization's messages created at or after `since` are on each channel
   * (their current one) in each status now; only non-zero counts, in no particular order.
   */
  countByChannel(organizationId: string, since: string): Promise<MessageChannelCount[]>;
  /**
   * How many of the organization's messages created at or after `since` have numbers starting
   * with each prefix of `length` characters, each with a sample number the caller reads the
   * country of; only non-zero counts, in no particular order.
   */
  countByPrefix(
    organizationId: string,
    since: string,
    length: number,
  ): Promise<MessagePrefixCount[]>;
  /**
   * Stores what one leg cost unless that leg already has a price (the first report wins, so a
   * provider's repeated reports never count twice); whether it stored it.
   */
  recordPrice(price: MessagePriceRecord): Promise<boolean>;
  /** The prices of some of the organization's messages' legs, in no particular order. */
  listPrices(organizationId: string, messageIds: readonly string[]): Promise<MessagePriceRecord[]>;
  /**
   * What the organization's legs priced at or after `since` cost, summed by the recipient's
   * country and currency; in no particular order.
   */
  spendByCountry(organizationId: string, since: string): Promise<CountrySpend[]>;
}

/** One line of `MessageRepository.countByChannel`. */
export interface MessageChannelCount {
  channel: Channel;
  status: MessageStatus;
  count: number;
}

/** What `MessageRepository.advance` writes. */
export interface MessageAdvance {
  status: MessageStatus;
  /** Written when present (a failure's reason); absent, the stored error is kept. */
  error?: MessageError | null | undefined;
  /** Written when present (a held message's TTL counted from its release); absent, kept. */
  expiresAt?: string | undefined;
  updatedAt: string;
}

/** One line of `MessageRepository.countByHour`. */
export interface MessageHourCount {
  hour: string;
  status: MessageStatus;
  count: number;
}

/** Tracked links: written by a send, read by the redirect and the message view. */
export interface LinkRepository {
  /**
   * Stores a message's links (clicks 0), in the caller's transaction: one call per send, made
   * only when the message has links. A code already taken rejects (a primary key).
   */
  insertMany(links: readonly NewLink[]): Promise<void>;
  /** The link with this code, whichever organization's (the code is what a recipient holds). */
  get(code: string): Promise<LinkRecord | null>;
  /** A message's links, in no particular order; `[]` when none or another organization's. */
  listForMessage(organizationId: string, messageId: string): Promise<LinkRecord[]>;
  /** The links of several messages of one organization, in no particular order. */
  listForMessages(organizationId: string, messageIds: readonly string[]): Promise<LinkRecord[]>;
  /**
   * Counts one click in one atomic write: `clicks` + 1, `firstClickedAt` set when unset,
   * `lastClickedAt` = `at`. Answers the link as written, or `null` (nothing written) when the
   * code is unknown.
   */
  recordClick(code: string, at: string): Promise<LinkRecord | null>;
}
