/**
 * Every port of the core in one place. Adapters implement these; the core imports no adapter
 * (biome.json's `noRestrictedImports` refuses it).
 *
 * Conventions for every storage method:
 * - All ids are public ids (`prf_…`, `cmp_…`, `whk_…`, `key_…`, `org_…`, `lst_…`, UUID v7 for
 *   messages, events and deliveries). Every read and write is scoped by `organizationId`;
 *   a record of another organization is "not found" (`null` / `false`), never returned.
 * - Timestamps are ISO 8601 UTC strings with milliseconds and `Z`, supplied by the core's
 *   `Clock`; storage never reads the time itself unless a method says so.
 * - "Not found" is `null` for single reads and `false` for writes, never an exception.
 *   Exceptions mean the storage itself failed (I/O, corruption) and become 500s, except
 *   `StorageBusyError` (locked by another process) and `StorageUnavailableError` (out of
 *   reach, full, read-only), which the HTTP adapter answers with 503 and `Retry-After`.
 */

import type { SendingWindow } from "./schedule/sending-window.js";
import type { StorageHealth } from "./support/storage-faults.js";

// ---------------------------------------------------------------------------------------------
// Time and ids
// ---------------------------------------------------------------------------------------------

/** The source of time, so every rule can be tested with a fixed or manual clock. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/**
 * Where a phone number may be and which days are public holidays there, from data an adapter
 * loads once (core reads no files). Both answers are plain lookups, fast enough for every send.
 */
export interface LocalCalendar {
  /**
   * The IANA time zones the number's prefix may be in (several for a prefix that spans
   * zones); `[]` when the data knows none.
   */
  zonesOf(phoneNumber: string): readonly string[];
  /** Whether `localDate` (`YYYY-MM-DD`) is a public holiday in `country` (ISO 3166-1 alpha-2). */
  isPublicHoliday(country: string, localDate: string): boolean;
}

/** The source of ids. */
export interface Ids {
  /** A fresh UUID v7 (RFC 9562), strictly increasing within one process. */
  uuidv7(): string;
  /** A fresh time-ordered public id such as `prf_01jd…`: prefix, `_`, 26 Crockford base32 chars. */
  prefixed(prefix: IdPrefix): string;
}

export type IdPrefix = "prf" | "cmp" | "whk" | "key" | "org" | "lst";

// ---------------------------------------------------------------------------------------------
// Records (what storage keeps)
// ---------------------------------------------------------------------------------------------

export type ProfileSource = "api" | "import" | "shopify" | "woocommerce";
export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

export interface OrganizationRecord {
  id: string;
  name: string;
  createdAt: string;
}

export interface ProfileRecord {
  id: string;
  organizationId: string;
  /** Internal insertion order; the cursor of list pages. Assigned by storage on insert. */
  seq: number;
  phoneNumber: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  viberMarketingConsent: boolean;
  smsMarketingConsent: boolean;
  attributes: Attributes;
  source: ProfileSource;
  status: "active" | "inactive";
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  /** The recipient's own IANA time zone, when known; else their number's prefix decides. */
  timeZone: string | null;
}

/** A profile as handed to `insert`: storage assigns `seq`. */
export type NewProfile = Omit<ProfileRecord, "seq">;

export interface ConsentChangeRecord {
  id: string;
  organizationId: string;
  profileId: string;
  channel: Channel;
  /** `null` when the profile was created with the flag. */
  oldValue: boolean | null;
  newValue: boolean;
  /** The key that made the change; `null` when no key did (an inbound STOP, the CLI). */
  apiKeyId: string | null;
  /** What made the change. */
  source: ConsentSource;
  changedAt: string;
  /**
   * Why, where someone said: a suppression's note, or the note that lifted one (a lifted
   * suppression is written even when the consent stays as it was). Erasure clears it.
   */
  note: string | null;
}

/** What changed a consent flag. */
export type ConsentSource = "api" | "import" | "console" | "inbound" | "provider";

/** Where a suppression came from: a person's reply, a provider's refusal, or the API. */
export type SuppressionSource = "inbound" | "provider" | "api";

/**
 * A number that must not be sent to on one channel by one organization. The number is kept
 * only as a keyed hash (HMAC-SHA-256 under the organization's suppression key, hex), so it
 * outlives the profile and its erasure without keeping the number itself.
 */
export interface SuppressionRecord {
  /** UUID v7: the order of newest-first pages. */
  id: string;
  organizationId: string;
  channel: Channel;
  phoneHash: string;
  source: SuppressionSource;
  /** The word that asked for it (`STOP`), for an inbound one. */
  keyword: string | null;
  /** The provider that brought the opt-out or refusal. */
  provider: string | null;
  note: string | null;
  /**
   * The channel's marketing consent of the number's profile right before the opt-out (`null`:
   * no profile), so an opt-in restores exactly what it removed.
   */
  consentBefore: boolean | null;
  createdAt: string;
}

/** An organization's key of suppression hashes, sealed by the `SecretBox`. */
export interface SuppressionKeyRecord {
  organizationId: string;
  keySealed: string;
  createdAt: string;
}

/** What an inbound text meant. */
export type KeywordClass = "opt_out" | "opt_in" | "help";

/** One message a person sent to one of an organization's senders. */
export interface InboundMessageRecord {
  /** UUID v7, the `inbound_id`. */
  id: string;
  organizationId: string;
  provider: string;
  providerMessageId: string;
  channel: Channel;
  /** The person's number, E.164. */
  fromNumber: string;
  /** Our sender it was written to. */
  toSender: string;
  text: string;
  keywordClass: KeywordClass | null;
  /** The profile of `fromNumber` when it had one. */
  profileId: string | null;
  receivedAt: string;
}

/** An operator's word that a sender belongs to an organization. */
export interface SenderAssignmentRecord {
  organizationId: string;
  channel: Channel;
  sender: string;
  createdAt: string;
}

export interface ContactListRecord {
  id: string;
  organizationId: string;
  name: string;
  createdAt: string;
}

export interface MembershipRecord {
  listId: string;
  profileId: string;
  organizationId: string;
  addedAt: string;
}

export type Channel = "viber" | "sms";
export type Category = "otp" | "transactional" | "promotional";

export interface CampaignRecord {
  id: string;
  organizationId: string;
  name: string;
  channel: Channel;
  /** Only meaningful for Viber campaigns; always false for SMS. */
  smsFallback: boolean;
  category: Category;
  sender: string;
  template: string;
  ttlSeconds: number;
  status: "active" | "inactive";
  createdAt: string;
  updatedAt: string;
  /** Viber campaigns only: the SMS sender of a fallback; `null`: the campaign's `sender`. */
  smsSender: string | null;
  /** Whether sends rewrite the template's http(s) URLs into tracked short links. */
  trackLinks: boolean;
  /** When its messages may reach a recipient, in the recipient's local time; `null`: any time. */
  sendingWindow: SendingWindow | null;
  /** Countries this campaign may send to, within the organization's; `null`: the organization's. */
  allowedCountries: string[] | null;
}

export type Scope =
  | "profiles:read"
  | "profiles:write"
  | "messages:send"
  | "messages:read"
  | "webhooks:manage"
  | "campaigns:manage"
  | "settings:manage";

/** A stored record with its internal insertion sequence, the cursor of newest-first pages. */
export type Sequenced<T> = T & { seq: number };

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  /** What the operator calls the key (e.g. "Checkout service"); shown in lists only. */
  name: string | null;
  /** SHA-256 digest of the key secret, `sha256$<digest b64url>` (see auth/key-secret.ts). */
  secretHash: string;
  /** The webhook signing secret, sealed by the `SecretBox`. */
  webhookSigningSecretSealed: string;
  scopes: Scope[];
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

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
export type Topic =
  | "message.sent"
  | "message.delivered"
  | "message.seen"
  | "message.clicked"
  | "message.failed"
  | "message.expired"
  | "message.cancelled";

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

/**
 * Every topic a subscription can take: the message lifecycle, consent changes, inbound messages
 * and a person's erasure.
 */
export type WebhookTopic =
  | Topic
  | "profile.consent_changed"
  | "message.received"
  | "profile.erased";

export interface WebhookSubscriptionRecord {
  id: string;
  organizationId: string;
  url: string;
  topics: WebhookTopic[];
  status: "active" | "inactive";
  description: string | null;
  /** The signing secret, sealed by the `SecretBox`. */
  secretSealed: string;
  /**
   * Why the engine deactivated it: `"failing"` after attempts kept failing with no success for
   * the configured time; `null` otherwise (a PATCH to active clears it).
   */
  disabledReason: WebhookDisabledReason | null;
  /** When its attempts began failing with no success since; `null` while the last one succeeded. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Why the delivery engine turned a subscription off. */
export type WebhookDisabledReason = "failing";

/** Where one delivery goes: an organization subscription, or a message's own `webhook_url`. */
export type DeliveryDestination =
  | { kind: "subscription"; webhookId: string }
  | { kind: "message"; url: string; apiKeyId: string };

export type DeliveryStatus = "pending" | "delivered" | "failed" | "cancelled";

export interface DeliveryRecord {
  /** UUID v7, the `X-Service-Delivery-Id`, the same on every retry. */
  id: string;
  organizationId: string;
  eventId: string;
  messageId: string | null;
  /**
   * The event it announces: a message event, or `profile.erased` (whose `messageId` is null).
   * The test event is posted at once and never stored.
   */
  topic: WebhookTopic;
  destination: DeliveryDestination;
  /**
   * The destination that concurrency, fairness and the circuit breaker count by: the
   * organization and the origin (scheme, host, port) of the URL it goes to, set when the
   * delivery is created and moved when its subscription's URL changes (see `destinationKey`).
   */
  destinationKey: string;
  /** The exact JSON body posted, fixed when the delivery is created. */
  payload: string;
  status: DeliveryStatus;
  /** Attempts made so far; the next attempt's `X-Service-Retry-Attempt` equals this. */
  attempts: number;
  nextAttemptAt: string;
  firstAttemptAt: string | null;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  /** When the last recorded attempt started; `null` before the first. */
  lastAttemptAt: string | null;
  /**
   * The attempt count when the current retry window began: 0, or the count at the last
   * redelivery. The backoff counts only the attempts since, so a redelivery retries as promptly
   * as a new delivery while `X-Service-Retry-Attempt` keeps counting.
   */
  windowStartAttempt: number;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryAttemptRecord {
  deliveryId: string;
  organizationId: string;
  /** 0 for the first attempt. */
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /** The first 2 KiB of the response body (UTF-8, never a split character). */
  responseBody: string | null;
}

/** A one-time console sign-in link's token, kept only as a hash until it is spent or expires. */
export interface ConsoleSignInTokenRecord {
  /** `sha256$<digest b64url>` of the token in the link; the token itself is never stored. */
  tokenHash: string;
  organizationId: string;
  createdAt: string;
  expiresAt: string;
}

/** A signed-in console session of one organization, kept only as a hash of its cookie. */
export interface ConsoleSessionRecord {
  /** `sha256$<digest b64url>` of the session id in the cookie. */
  idHash: string;
  organizationId: string;
  createdAt: string;
  /** The last request seen; the session ends `expiresAt`, an idle period after it. */
  lastSeenAt: string;
  expiresAt: string;
}

export interface IdempotencyRecord {
  /** The API key that made the request. */
  apiKeyId: string;
  /** Method and path, e.g. `POST /v1/messages/send`. */
  endpoint: string;
  key: string;
  /** A hash of the request body, to refuse a reuse with a different body. */
  requestHash: string;
  state: "in_progress" | "completed";
  response: StoredResponse | null;
  /**
   * While in progress: when the request counts as abandoned (its process died), so a retry with
   * the same body may resume it. It is also the holder's token: `markRecoveryPoint`, `complete`
   * and `release` act only for the holder. `null` once completed.
   */
  lockedUntil: string | null;
  /**
   * What the request committed, written in the same transaction as its work (for a send,
   * `message:<id>`), so a resumed retry answers from it instead of doing the work again.
   */
  recoveryPoint: string | null;
  createdAt: string;
  expiresAt: string;
}

/** What `IdempotencyRepository.begin` found. */
export type IdempotencyBegin =
  /** No live record: `record` is stored and the caller holds it. */
  | { outcome: "started" }
  /**
   * The record was in progress with the same request hash, and its lock had ended: the caller
   * now holds it, under the new `lockedUntil`. `record` is as stored after the takeover.
   */
  | { outcome: "resumed"; record: IdempotencyRecord }
  /** A live record that the caller does not get to hold: completed, held, or another body. */
  | { outcome: "exists"; record: IdempotencyRecord };

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Storage
// ---------------------------------------------------------------------------------------------

/** A libphonenumber number type a send may be refused for (`blocked_number_types`). */
export type NumberType =
  | "PREMIUM_RATE"
  | "SHARED_COST"
  | "UAN"
  | "TOLL_FREE"
  | "VOIP"
  | "PERSONAL_NUMBER"
  | "PAGER"
  | "VOICEMAIL"
  | "FIXED_LINE"
  | "MOBILE"
  | "FIXED_LINE_OR_MOBILE";

/**
 * An organization's abuse protection (docs/production.md "Protecting an OTP endpoint"): where
 * and how often it may send. Every limit is off while `null` (or `{}`).
 */
export interface OrganizationSettings {
  /** ISO 3166-1 alpha-2 regions a message may go to; `null` for all. */
  allowedCountries: string[] | null;
  /** Number types no message goes to. */
  blockedNumberTypes: NumberType[];
  /** Sends to one number, every category, per sliding hour and day. */
  destinationLimits: { perHour: number | null; perDay: number | null };
  /** Sends to the numbers that share all but the last 3 digits, per sliding hour. */
  prefixLimits: { perHour: number | null };
  /** Sends per region per UTC day. */
  countryDailyLimits: Record<string, number>;
}

/** The stored settings of one organization; none stored means the defaults. */
export interface OrganizationSettingsRecord extends OrganizationSettings {
  organizationId: string;
  updatedAt: string;
}

/** Organization settings: one record per organization, at most. */
export interface SettingsRepository {
  /** `null` when the organization never changed its settings. */
  get(organizationId: string): Promise<OrganizationSettingsRecord | null>;
  /** Stores the record, replacing the organization's settings if any. */
  put(record: OrganizationSettingsRecord): Promise<void>;
}

export interface OrganizationRepository {
  insert(org: OrganizationRecord): Promise<void>;
  /** `null` when unknown. */
  get(id: string): Promise<OrganizationRecord | null>;
  /** Every organization, oldest first (ties by id). */
  list(): Promise<OrganizationRecord[]>;
}

export interface ProfileListQuery {
  organizationId: string;
  /** Exact E.164 match. */
  phoneNumber?: string | undefined;
  /** Case-insensitive exact match. */
  email?: string | undefined;
  /** Only rows with `seq` greater than this. */
  afterSeq?: number | undefined;
  /** How many rows to return at most (the core asks for one more than the page size). */
  limit: number;
}

export interface ProfileRepository {
  /**
   * Inserts an active profile and returns it with its `seq`. Atomic with the uniqueness of
   * `phoneNumber` among the organization's active profiles: when another active profile holds
   * the number, nothing is written and `"phone_number_taken"` is returned.
   */
  insert(profile: NewProfile): Promise<ProfileRecord | "phone_number_taken">;
  /** The active profile, or `null` (unknown, another organization's or inactive). */
  get(organizationId: string, id: string): Promise<ProfileRecord | null>;
  /** The active profile holding this E.164 number, or `null`. */
  findByPhone(organizationId: string, phoneNumber: string): Promise<ProfileRecord | null>;
  /**
   * A send's recipient by number in one read: `findByPhone`'s answer, and the channels of the
   * organization's suppressions stored under `phoneHash` (the number's keyed hash), which are
   * answered whether or not a profile holds the number.
   */
  findRecipient(
    organizationId: string,
    phoneNumber: string,
    phoneHash: string,
  ): Promise<{ profile: ProfileRecord | null; suppressed: Channel[] }>;
  /** Active profiles whose email matches case-insensitively, oldest first, at most `limit`. */
  findByEmail(organizationId: string, email: string, limit: number): Promise<ProfileRecord[]>;
  /** Active profiles in `seq` order, filtered and paged as the query says. */
  list(query: ProfileListQuery): Promise<ProfileRecord[]>;
  /**
   * Replaces every mutable field of an active profile with `profile`'s. `false` when it is not
   * an active profile of the organization; `"phone_number_taken"` (nothing written) when the
   * new number is held by another active profile.
   */
  update(profile: ProfileRecord): Promise<boolean | "phone_number_taken">;
  /**
   * Marks an active profile inactive (status, `deletedAt`, `updatedAt`) and removes all its
   * contact list memberships, atomically. `false` when it is not an active profile.
   */
  softDelete(organizationId: string, id: string, at: string): Promise<boolean>;
}

export interface ConsentHistoryRepository {
  insert(change: ConsentChangeRecord): Promise<void>;
  /** A profile's consent changes, oldest first. */
  listForProfile(organizationId: string, profileId: string): Promise<ConsentChangeRecord[]>;
}

export interface ContactListRepository {
  /** `"name_taken"` when the organization already has a list with this name. */
  insert(list: ContactListRecord): Promise<undefined | "name_taken">;
  get(organizationId: string, id: string): Promise<ContactListRecord | null>;
  findByName(organizationId: string, name: string): Promise<ContactListRecord | null>;
  /** The organization's lists, oldest first. */
  list(organizationId: string): Promise<ContactListRecord[]>;
  /** Adds a membership; adding an existing one is a no-op that returns `false`. */
  addMember(membership: MembershipRecord): Promise<boolean>;
  /** `false` when there was no such membership. */
  removeMember(organizationId: string, listId: string, profileId: string): Promise<boolean>;
  /** Ids of the active profiles in a list, in the order they were added. */
  listMembers(organizationId: string, listId: string): Promise<string[]>;
  /** Ids of the lists a profile belongs to, oldest membership first. */
  listsOfProfile(organizationId: string, profileId: string): Promise<string[]>;
}

export interface CampaignListQuery {
  organizationId: string;
  status?: "active" | "inactive" | undefined;
  /** Only rows with `seq` less than this (the next page of a newest-first list). */
  beforeSeq?: number | undefined;
  /** How many rows to return at most (the core asks for one more than the page size). */
  limit: number;
}

export interface CampaignRepository {
  insert(campaign: CampaignRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<CampaignRecord | null>;
  /** The organization's campaigns, oldest first. */
  list(organizationId: string): Promise<CampaignRecord[]>;
  /** The organization's campaigns, newest first (`seq` descending), filtered and paged. */
  listPage(query: CampaignListQuery): Promise<Sequenced<CampaignRecord>[]>;
  /**
   * Inside a transaction, holds the campaign against other writers until it commits, so a
   * read-modify-write of it never loses a concurrent one's field (a row lock in PostgreSQL;
   * the single writer in SQLite and in memory). Call it before the read. Unknown: no-op.
   */
  lock(organizationId: string, id: string): Promise<void>;
  /** Replaces the mutable fields (channel and category included); `false` when unknown. */
  update(campaign: CampaignRecord): Promise<boolean>;
}

export interface ApiKeyRepository {
  insert(key: ApiKeyRecord): Promise<void>;
  /** By key id alone (authentication does not know the organization yet); `null` when unknown. */
  get(id: string): Promise<ApiKeyRecord | null>;
  /** The organization's keys, oldest first, revoked ones included. */
  list(organizationId: string): Promise<ApiKeyRecord[]>;
  /** Sets `revokedAt` once; `false` when unknown or already revoked. */
  revoke(id: string, at: string): Promise<boolean>;
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
   * Writes one leg's provider and provider message id (the `viber…` or `sms…` fields of
   * `channel`), whatever the status. `false` when the message is unknown.
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

/**
 * The fields of a subscription one write changes. An absent (or `undefined`) field keeps its
 * stored value, so a write never puts back a value it read earlier (a rotation writes only the
 * secret, a PATCH only what it changes).
 */
export interface WebhookSubscriptionChanges {
  url?: string | undefined;
  topics?: WebhookTopic[] | undefined;
  status?: "active" | "inactive" | undefined;
  /** `null` clears it. */
  description?: string | null | undefined;
  secretSealed?: string | undefined;
  disabledReason?: WebhookDisabledReason | null | undefined;
  failingSince?: string | null | undefined;
  /** Every change moves `updatedAt`. */
  updatedAt: string;
}

export interface WebhookSubscriptionRepository {
  insert(subscription: WebhookSubscriptionRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<WebhookSubscriptionRecord | null>;
  /** By id alone, for the delivery engine. */
  getById(id: string): Promise<WebhookSubscriptionRecord | null>;
  /** The organization's subscriptions, oldest first. */
  list(organizationId: string): Promise<WebhookSubscriptionRecord[]>;
  /**
   * Writes the fields present in `changes`, and only those, in one statement; the others keep
   * what is stored at that moment, whoever wrote it. `false` (nothing written) when unknown or
   * another organization's.
   */
  update(organizationId: string, id: string, changes: WebhookSubscriptionChanges): Promise<boolean>;
  /** `false` when unknown. */
  delete(organizationId: string, id: string): Promise<boolean>;
  /**
   * Serializes the organization's subscription changes: inside a transaction, a second caller
   * for the same organization waits until the first commits or rolls back, and what it reads
   * after the lock includes what the first committed (a transaction-level advisory lock in
   * PostgreSQL, under READ COMMITTED; the single writer in SQLite and in memory). Every
   * read-modify-write of a subscription takes it before its read.
   */
  lockOrganization(organizationId: string): Promise<void>;
  /**
   * Notes an attempt's outcome on the subscription: a success clears
   * `failingSince`; a failure sets it to `at` unless it is already set. Answers `failingSince`
   * as written (`null` after a success, or when the subscription is unknown). `updatedAt` is
   * not moved: this is the engine's bookkeeping, not a change anyone made.
   */
  noteAttempt(id: string, at: string, succeeded: boolean): Promise<string | null>;
  /**
   * Deactivates the subscription for failing, in one conditional write: only while it is
   * active and `failingSince` is at or before `failingBefore`. Sets `status: "inactive"`,
   * `disabledReason: "failing"` and `updatedAt = at`; answers the record as written, or `null`
   * (nothing written) when it is unknown, inactive, or not failing for that long.
   */
  disableFailing(
    id: string,
    failingBefore: string,
    at: string,
  ): Promise<WebhookSubscriptionRecord | null>;
}

/**
 * The claims of one delivery-engine pass, taken in order as one (see
 * `DeliveryRepository.claimSteps`).
 */
export interface ClaimStep extends ClaimOptions {
  /** The most rows this step claims (the pass's `limit` bounds all steps together too). */
  limit: number;
}

/** What a claim of due deliveries passes over or keeps to, and how many per destination. */
export interface ClaimOptions {
  /** Destinations whose rows are not claimed (their slots are full, or their circuit is open). */
  excludeDestinations?: readonly string[] | undefined;
  /** When present, only these destinations' rows are claimed. */
  onlyDestinations?: readonly string[] | undefined;
  /** The most rows claimed of any one destination (no bound when absent). */
  perDestination?: number | undefined;
}

export interface AttemptOutcome {
  attempt: DeliveryAttemptRecord;
  /** What becomes of the delivery after this attempt. */
  next:
    | { status: "delivered" }
    | { status: "failed" }
    | { status: "pending"; nextAttemptAt: string };
}

/** An attempt made on the delivery `id`, to be recorded (see `completeAttempts`). */
export interface CompletedAttempt extends AttemptOutcome {
  id: string;
}

export interface DeliveryListQuery {
  organizationId: string;
  status?: DeliveryStatus | undefined;
  /**
   * Only failing deliveries when true: pending, attempted, and the last attempt did not answer
   * 2xx (`isFailingDelivery`), the ones being retried.
   */
  failing?: boolean | undefined;
  /** Deliveries to this subscription only. */
  webhookId?: string | undefined;
  /** Deliveries of this message's events only. */
  messageId?: string | undefined;
  /** Only deliveries created strictly after this instant. */
  createdAfter?: string | undefined;
  /** Only deliveries created strictly before this instant. */
  createdBefore?: string | undefined;
  /** Only rows with `seq` less than this (the next page of a newest-first list). */
  beforeSeq?: number | undefined;
  limit: number;
}

/** What `DeliveryRepository.failingDestinations` looks at. */
export interface FailingDestinationsQuery {
  organizationId: string;
  /** Failed deliveries count when their last attempt was at or after this. */
  since: string;
  /** How many destinations to answer at most. */
  limit: number;
  /**
   * How many of the newest failed deliveries, and of the newest pending ones, are looked at
   * at most, so the cost stays bounded however long the organization's history is.
   */
  scan: number;
}

/** A destination some of whose deliveries fail: its counts and its latest failed attempt. */
export interface FailingDestination {
  /** The subscription's id; `null` for messages' own `webhook_url`s. */
  webhookId: string | null;
  /** The deliveries' `destinationKey` (the latest one's). */
  destinationKey: string;
  /** A message's own `webhook_url`, as stored (query string included); `null` for a subscription. */
  url: string | null;
  /** Pending deliveries that were attempted and whose last attempt failed: being retried. */
  retrying: number;
  /** Failed deliveries whose last attempt was at or after `since`. */
  failed: number;
  /** When the latest of those attempts started, with its status code (`null`: no answer) and error. */
  lastAttemptAt: string;
  lastStatusCode: number | null;
  lastError: string | null;
}

export interface DeliveryRepository {
  insert(delivery: DeliveryRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<DeliveryRecord | null>;
  /** The organization's deliveries matching every filter present, newest first (`seq` descending). */
  listPage(query: DeliveryListQuery): Promise<Sequenced<DeliveryRecord>[]>;
  /**
   * The organization's destinations with failing deliveries, the most recent failure first
   * (ties by destination), at most `limit`. A subscription is one destination, whatever its
   * URL; messages' own URLs are grouped by `destinationKey`. A delivery counts when it failed
   * with its last attempt at or after `since`, or is pending after an attempt that did not
   * answer 2xx; only the `scan` newest (by `seq`) failed and the `scan` newest pending are
   * looked at.
   */
  failingDestinations(query: FailingDestinationsQuery): Promise<FailingDestination[]>;
  /** A message's deliveries, oldest first. */
  listForMessage(organizationId: string, messageId: string): Promise<DeliveryRecord[]>;
  /**
   * Atomically leases up to `limit` pending deliveries whose `nextAttemptAt` is at or before
   * `now` and whose lease is free or expired: sets `leaseOwner` and
   * `leaseExpiresAt = now + leaseMs`. Two concurrent callers never receive the same row.
   * Rows of a destination in `excludeDestinations`, or outside `onlyDestinations` when given,
   * are not claimed. Which rows, fairly between organizations and between destinations:
   * each destination offers its `perDestination` oldest due rows (by `nextAttemptAt`, then id),
   * ranked 1, 2, … within it; each organization's offers are ranked by (that rank,
   * `nextAttemptAt`, id) into turns 1, 2, …; the claim takes the `limit` first by (turn,
   * `nextAttemptAt`, id). So one organization's or destination's backlog never keeps another's
   * due rows waiting. Answers them oldest `nextAttemptAt` first (then id).
   */
  claimDue(
    now: string,
    limit: number,
    owner: string,
    leaseMs: number,
    options?: ClaimOptions,
  ): Promise<DeliveryRecord[]>;
  /**
   * Optional: several `claimDue` calls in one, as an engine's pass makes them: each step claims
   * as `claimDue(now, min(step.limit, what is left of limit), owner, leaseMs, step)` would
   * after the steps before it, and the answer is every step's rows, step by step, each step's
   * oldest `nextAttemptAt` first (then id). A step's `excludeDestinations` pass over the
   * destinations later steps name in `onlyDestinations` too, as an engine plans them. An
   * adapter that makes a round trip per statement offers it to claim a pass in one; without
   * it the engine calls `claimDue` per step.
   */
  claimSteps?(
    now: string,
    limit: number,
    owner: string,
    leaseMs: number,
    steps: readonly ClaimStep[],
  ): Promise<DeliveryRecord[]>;
  /**
   * Logs attempts that were made, and applies each one's outcome if it still may, all
   * atomically (one engine pass records what finished since the last one in one call).
   * Each attempt is always appended to its delivery's attempt log (it went out, whatever
   * became of the lease), under the stored delivery's id and organization. Its outcome (`next`,
   * the attempt count, first attempt time, last status and error) is applied and the lease
   * released only while `owner` still holds the lease and the delivery is still `pending`;
   * otherwise (lease lost to another owner or released, delivery cancelled, delivered or
   * failed meanwhile) the delivery row is left exactly as it is. The answer holds, in the
   * order given, `true` where the outcome was applied; `false` where it was not, or where the
   * delivery is unknown (then nothing is written for it). An applied outcome also sets
   * `lastAttemptAt` to the attempt's `startedAt`. Attempts are recorded as if one after
   * another in the order given, so a delivery that appears twice (an attempt whose recording
   * failed, kept until its lease ran out, then attempted again) has both logged, and only the
   * first can apply.
   */
  completeAttempts(owner: string, attempts: readonly CompletedAttempt[]): Promise<boolean[]>;
  /**
   * Optional: an engine's pass in one atomic write, `completeAttempts(owner, attempts)` and
   * `claimSteps(now, limit, owner, leaseMs, steps)`, answering both. The claim does not see
   * the record: it never takes one of `attempts`' deliveries, even one due again at `now`.
   * An adapter that makes a round trip per statement offers it to make a pass one statement;
   * without it the engine runs the two in a transaction.
   */
  recordAndClaim?(
    owner: string,
    attempts: readonly CompletedAttempt[],
    now: string,
    limit: number,
    leaseMs: number,
    steps: readonly ClaimStep[],
  ): Promise<{ recorded: boolean[]; claimed: DeliveryRecord[] }>;
  /** Cancels the pending deliveries to one subscription; returns how many. */
  cancelForSubscription(organizationId: string, webhookId: string, at: string): Promise<number>;
  /**
   * Moves the pending deliveries to one subscription to `destinationKey` (its URL changed);
   * returns how many.
   */
  rekeyForSubscription(
    organizationId: string,
    webhookId: string,
    destinationKey: string,
  ): Promise<number>;
  /**
   * Makes every pending delivery of one destination whose `nextAttemptAt` is after `at` due at
   * `at` (the destination answers again: its backlog need not wait out its backoff); attempts,
   * window and lease are kept. Returns how many.
   */
  dueNowForDestination(destinationKey: string, at: string): Promise<number>;
  /**
   * Makes a delivery that is not pending (delivered, failed or cancelled) pending again, due at
   * `at`, in one conditional write: only while it is not pending and no lease is live at `at`
   * (an attempt still in flight holds one), so a redelivery never puts a second attempt in
   * flight beside the engine's. Keeps its id, payload and attempt count; starts a new retry
   * window (`firstAttemptAt` null, `windowStartAttempt` = attempts); clears the lease; moves
   * `updatedAt`. `false` (nothing written) when unknown, another organization's, pending or
   * leased.
   */
  redeliver(organizationId: string, id: string, at: string): Promise<boolean>;
  /**
   * Redelivers, as `redeliver` does each one, every failed or cancelled delivery to one
   * subscription created at or after `since`, in one write; returns how many.
   */
  requeueForSubscription(
    organizationId: string,
    webhookId: string,
    since: string,
    at: string,
  ): Promise<number>;
  /** A delivery's attempts, in order. */
  listAttempts(organizationId: string, deliveryId: string): Promise<DeliveryAttemptRecord[]>;
  /** The earliest `nextAttemptAt` among pending deliveries, or `null`; lets an idle engine sleep. */
  nextDueAt(): Promise<string | null>;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Hits left in the window after this one. */
  remaining: number;
  /**
   * Milliseconds until `remaining` next goes up: until the oldest counted hit leaves the window
   * (or, when more hits are counted than `limit` allows, enough of the oldest for one more to
   * fit). So when the hit was refused, the wait until one would be allowed. 0 only when no hit
   * is counted.
   */
  resetMs: number;
}

export interface RateLimitRepository {
  /**
   * Sliding-log rate limit: counts the hits on `key` after `now - windowMs`; when fewer than
   * `limit`, records this hit and allows it. Atomic: concurrent callers never both take the
   * last slot. A hit recorded with a later `now` counts too: callers (in any process) read
   * their clocks before they get the key, so the one served first may carry the later time.
   * Old hits may be pruned.
   */
  hit(key: string, now: number, windowMs: number, limit: number): Promise<RateLimitDecision>;
  /**
   * A send's hit on its API key's limit and on the limits of its destination, all at once:
   * every counter of `destinations` is checked first; when one is full, nothing is counted
   * anywhere (not even the key's hit) and the answer names it. Otherwise the key's hit is
   * made as `hit` makes it, and only when the key allows it is each destination counted too.
   * Atomic across callers and processes, like `hit`. Destination counts may be kept where a
   * crash forgets them (they only ever let a few more sends through).
   */
  hitSend(send: SendHits): Promise<SendHitDecision>;
}

/**
 * A counter of a send's destination: a number's or a prefix's sends in sliding windows
 * (`windows`), or a country's sends in a fixed period that ends at `until` (`total`).
 */
export type DestinationCounter =
  | {
      /** The counter's key, never a phone number in clear. */
      key: string;
      /** Sliding windows over the key's counted sends, each with its limit. */
      windows: ReadonlyArray<{ windowMs: number; limit: number }>;
    }
  | {
      /** The counter's key, the period's included (a new period starts a new key). */
      key: string;
      /** At most `limit` sends until `until` (ms), when the count may be forgotten. */
      total: { limit: number; until: number };
    };

/** What `RateLimitRepository.hitSend` counts. */
export interface SendHits {
  now: number;
  key: { key: string; windowMs: number; limit: number };
  destinations: readonly DestinationCounter[];
}

/** How `hitSend` decided. */
export type SendHitDecision =
  /** The key's decision; the destinations were counted when it allows the send. */
  | { refusedBy: null; key: RateLimitDecision }
  /** Destination `refusedBy` (its index) is full; nothing was counted; room again in `resetMs`. */
  | { refusedBy: number; resetMs: number };

export interface IdempotencyRepository {
  /**
   * Atomically starts a request (key: apiKeyId, endpoint, key). With no record, or an expired
   * one, stores `record` (state `in_progress`) and answers `started`. With an in-progress record
   * of the same `requestHash` whose `lockedUntil` is at or before `now`, takes it over: sets its
   * `lockedUntil` to `record.lockedUntil`, keeps everything else, and answers `resumed`. Otherwise
   * answers `exists` with the stored record and writes nothing. Of concurrent callers, at most
   * one starts or resumes.
   */
  begin(record: IdempotencyRecord, now: string): Promise<IdempotencyBegin>;
  /**
   * Sets the record's recovery point, only while `lockedUntil` is still the record's (the
   * caller holds it); `false` (nothing written) otherwise. Called inside the transaction of the
   * request's work, so the point commits with the work.
   */
  markRecoveryPoint(
    apiKeyId: string,
    endpoint: string,
    key: string,
    lockedUntil: string,
    recoveryPoint: string,
  ): Promise<boolean>;
  /**
   * `markRecoveryPoint` for a storage that can carry the write with the transaction's next
   * statement or its COMMIT instead of waiting for its answer: when the caller no longer holds
   * the key, the transaction fails with `IdempotencyTakenOverError` (at the latest at its
   * commit) and writes nothing. Optional; without it the core calls `markRecoveryPoint`.
   */
  markRecoveryPointAtCommit?(
    apiKeyId: string,
    endpoint: string,
    key: string,
    lockedUntil: string,
    recoveryPoint: string,
  ): Promise<void>;
  /** Stores the response of a started request (state `completed`), only for the holder. */
  complete(
    apiKeyId: string,
    endpoint: string,
    key: string,
    lockedUntil: string,
    response: StoredResponse,
  ): Promise<void>;
  /** Forgets a started request (its answer is not to be replayed, e.g. a 5xx), only for the holder. */
  release(apiKeyId: string, endpoint: string, key: string, lockedUntil: string): Promise<void>;
}

/** Where a walk over old messages stopped: the last message it looked at. */
export interface MessageCursor {
  createdAt: string;
  id: string;
}

export interface OldMessagesQuery {
  /** Only messages created before this are deleted. */
  createdBefore: string;
  /** The sweep's time: a message still `sent` whose `expiresAt` is after it is kept. */
  now: string;
  /** Continue after this message (in `createdAt`, then `id` order); `null` starts at the oldest. */
  after: MessageCursor | null;
  /** How many messages one call looks at, at most; it bounds the work of one batch. */
  limit: number;
}

export interface OldMessagesDeleted {
  /** How many messages were deleted, each with its events, deliveries and attempts. */
  deleted: number;
  /**
   * The last message looked at, to continue from; `null` when fewer than `limit` were left to
   * look at (the walk reached the end).
   */
  next: MessageCursor | null;
}

/**
 * What retention deletes. Every method deletes a bounded batch in one short transaction and
 * answers how much it did, so a sweep can go on in small steps between other work. Profiles,
 * consent history, campaigns, keys and subscriptions are never touched.
 */
export interface RetentionRepository {
  /**
   * Looks at up to `limit` messages created before `createdBefore`, oldest first after
   * `after`, and deletes those whose deliveries are none of them `pending` and whose lifecycle
   * is not still open (`scheduled` or `releasing` at any age, `sent` with `expiresAt` after
   * `now`), each together with its events,
   * deliveries and their attempts. Atomic per call: a reader sees a message with all its
   * records or not at all. Skips (keeps, for a later call) a message whose row or deliveries
   * another transaction holds, so concurrent sweepers never wait on each other or on claims.
   */
  deleteOldMessages(query: OldMessagesQuery): Promise<OldMessagesDeleted>;
  /**
   * Deletes up to `limit` idempotency records whose `expiresAt` is at or before `now` and that
   * no request holds (completed, or in progress with `lockedUntil` at or before `now`).
   * Returns how many.
   */
  deleteExpiredIdempotencyRecords(now: string, limit: number): Promise<number>;
  /**
   * Deletes up to `limit` rate-limit hits made at or before `before` (ms since the epoch), of
   * any key; `hit` prunes only the key it counts, so keys that stopped sending leave theirs.
   * Returns how many.
   */
  deleteRateLimitHitsBefore(before: number, limit: number): Promise<number>;
  /**
   * Deletes up to `limit` console sign-in tokens and sessions (together) whose `expiresAt` is
   * at or before `now`, tokens first; every read treats them as absent already, so this only
   * drops rows. Returns how many.
   */
  deleteExpiredConsoleSessions(now: string, limit: number): Promise<number>;
  /**
   * Gives the space freed by deletes back to the file system where the storage can (SQLite
   * in incremental auto-vacuum mode, a bounded number of pages per call); elsewhere a no-op.
   * Call it outside a transaction. Returns how many pages it released (0 when none or unknown).
   */
  reclaimSpace(): Promise<number>;
}

/**
 * Console sign-in tokens and sessions. Both are looked up by the hash of their secret only, and
 * neither is scoped by organization on reads (the hash is the credential); a record whose
 * `expiresAt` is at or before `now` is treated as absent by every read.
 */
export interface ConsoleSessionRepository {
  insertSignInToken(token: ConsoleSignInTokenRecord): Promise<void>;
  /** The unspent token with this hash that expires after `now`, or `null`; reading never spends it. */
  findSignInToken(tokenHash: string, now: string): Promise<ConsoleSignInTokenRecord | null>;
  /**
   * Spends a token: removes it and answers it when it is unspent and expires after `now`, else
   * `null` and nothing is written. Of concurrent callers with the same hash, at most one gets it.
   */
  spendSignInToken(tokenHash: string, now: string): Promise<ConsoleSignInTokenRecord | null>;
  insertSession(session: ConsoleSessionRecord): Promise<void>;
  /** The session with this hash that expires after `now`, or `null`. */
  findSession(idHash: string, now: string): Promise<ConsoleSessionRecord | null>;
  /**
   * Moves a session's `lastSeenAt` and `expiresAt` forward (never back); `false` (nothing
   * written) when unknown, ended, or already expired at `lastSeenAt`.
   */
  touchSession(idHash: string, lastSeenAt: string, expiresAt: string): Promise<boolean>;
  /** Ends one session; `false` when there was none. */
  deleteSession(idHash: string): Promise<boolean>;
  /** Ends every session of an organization (its sign-in tokens too); returns how many sessions. */
  deleteOrganizationSessions(organizationId: string): Promise<number>;
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

/** Who a privacy request is about: one profile, or everything held under a number or an e-mail. */
export type PrivacyMatch =
  | { profileId: string }
  | { phoneNumber: string }
  /** Case-insensitive. */
  | { email: string };

/**
 * What erasure and export need beyond the other repositories (see `privacy/` in the core).
 * Erased values are the empty string where a column cannot be null (a profile's and a
 * message's phone number, a message's text, a link's URL): no valid value is ever empty, so
 * the empty string means "erased".
 */
export interface PrivacyRepository {
  /**
   * The organization's profiles matching, active, deleted or erased, oldest first (`seq`).
   * An erased profile matches only by id (its number and e-mail are gone).
   */
  findProfiles(organizationId: string, match: PrivacyMatch): Promise<ProfileRecord[]>;
  /** The organization's messages to the profile, oldest first (`createdAt`, then id). */
  messagesOfProfile(organizationId: string, profileId: string): Promise<MessageRecord[]>;
  /** The organization's messages sent to the number, whoever's, oldest first. */
  messagesToNumber(organizationId: string, phoneNumber: string): Promise<MessageRecord[]>;
  /**
   * Erases a profile: phone number `""`, e-mail, names null, attributes `{}`; marks it
   * inactive (with `deletedAt` = `at` unless it was deleted before) and moves `updatedAt`.
   * Memberships are not touched (a soft delete removed them). `false` when unknown.
   */
  eraseProfile(organizationId: string, id: string, at: string): Promise<boolean>;
  /**
   * Erases a message's recipient number and text (both `""`) and replaces its error with
   * `error` (the same error with the number taken out), and ends a pending SMS fallback
   * (`fallbackDueAt` null: there is no number left to send it to). `false` when unknown.
   */
  eraseMessage(organizationId: string, id: string, error: MessageError | null): Promise<boolean>;
  /** Replaces the error of one of the organization's message events. */
  replaceEventError(organizationId: string, eventId: string, error: MessageError): Promise<void>;
  /** Erases the original URL (`""`) of every link of a message; how many were erased. */
  eraseLinks(organizationId: string, messageId: string): Promise<number>;
  /** Replaces the stored body and last error of one delivery; `false` when unknown. */
  rewriteDelivery(
    organizationId: string,
    id: string,
    payload: string,
    lastError: string | null,
  ): Promise<boolean>;
  /**
   * Drops the response bodies (null) of a delivery's attempts: a receiver may echo what it was
   * sent. Their errors stay (the transport's own words, never the body). How many had one.
   */
  eraseAttempts(organizationId: string, deliveryId: string): Promise<number>;
  /** The idempotency records of one API key (expired ones included). */
  idempotencyRecordsOfKey(apiKeyId: string): Promise<IdempotencyRecord[]>;
  /** Deletes one idempotency record, held or not; `false` when there was none. */
  deleteIdempotencyRecord(apiKeyId: string, endpoint: string, key: string): Promise<boolean>;
  /**
   * The organization's inbound messages from any of `numbers` or of any of `profileIds`,
   * oldest first (`receivedAt`, then id). Empty lists match nothing.
   */
  inboundOfPerson(
    organizationId: string,
    numbers: readonly string[],
    profileIds: readonly string[],
  ): Promise<InboundMessageRecord[]>;
  /** Erases an inbound message's sender number and text (both `""`); `false` when unknown. */
  eraseInbound(organizationId: string, id: string): Promise<boolean>;
  /**
   * Clears the note of one of the organization's suppressions (null); the suppression itself
   * stays. `false` when unknown.
   */
  clearSuppressionNote(organizationId: string, id: string): Promise<boolean>;
  /** Clears the notes of a profile's consent history; answers how many it cleared. */
  clearConsentNotes(organizationId: string, profileId: string): Promise<number>;
  /**
   * Profiles of any organization deleted at or before `deletedBefore` and not erased yet,
   * the longest deleted first, at most `limit`: what retention erases.
   */
  deletedNotErased(deletedBefore: string, limit: number): Promise<ProfileRecord[]>;
}

export interface SuppressionListQuery {
  organizationId: string;
  channel?: Channel | undefined;
  phoneHash?: string | undefined;
  /** Only rows whose id is less than this (the next page, newest first). */
  beforeId?: string | undefined;
  limit: number;
}

/** Suppressions and the per-organization keys of their hashes. Never swept by retention. */
export interface SuppressionRepository {
  /** The organization's sealed key, or `null` when it has none yet. */
  key(organizationId: string): Promise<string | null>;
  /**
   * Stores the organization's key unless it has one already; answers the key stored (the
   * given one, or the one a concurrent caller stored first).
   */
  insertKey(key: SuppressionKeyRecord): Promise<string>;
  /** Every organization's sealed key, for the start-up check that each still opens. */
  listKeys(): Promise<SuppressionKeyRecord[]>;
  /** Stores a suppression; `false` (nothing written) when (organization, channel, hash) has one. */
  insert(suppression: SuppressionRecord): Promise<boolean>;
  /** The number's suppressions in the organization, on either channel (at most two). */
  forNumber(organizationId: string, phoneHash: string): Promise<SuppressionRecord[]>;
  /** The suppressions of several numbers in the organization, in one read, in no order. */
  forNumbers(organizationId: string, phoneHashes: readonly string[]): Promise<SuppressionRecord[]>;
  /** The organization's suppressions, newest first (`id` descending), filtered and paged. */
  list(query: SuppressionListQuery): Promise<SuppressionRecord[]>;
  /** Removes one and answers it; `null` when there was none. */
  delete(
    organizationId: string,
    channel: Channel,
    phoneHash: string,
  ): Promise<SuppressionRecord | null>;
}

export interface InboundListQuery {
  organizationId: string;
  channel?: Channel | undefined;
  /** Exact E.164 match of the sender's number. */
  fromNumber?: string | undefined;
  /** Only rows whose id is less than this (the next page, newest first). */
  beforeId?: string | undefined;
  limit: number;
}

/** Inbound messages: kept like messages, swept by retention. */
export interface InboundMessageRepository {
  /**
   * Stores one; `false` (nothing written) when the organization already has this provider's
   * message id.
   */
  insert(message: InboundMessageRecord): Promise<boolean>;
  /** The organization's inbound messages, newest first (`id` descending), filtered and paged. */
  list(query: InboundListQuery): Promise<InboundMessageRecord[]>;
  /** Deletes up to `limit` received before `before`, oldest first; how many. */
  deleteReceivedBefore(before: string, limit: number): Promise<number>;
  /**
   * The organizations that sent a message to `phoneNumber` from `sender` created at or after
   * `since` (the inbound ownership rule), in no particular order.
   */
  messageOwners(phoneNumber: string, sender: string, since: string): Promise<string[]>;
}

/** Which organizations an operator assigned each sender to. */
export interface SenderAssignmentRepository {
  /** `false` when the organization already has it. */
  assign(assignment: SenderAssignmentRecord): Promise<boolean>;
  /** `false` when there was no such assignment. */
  unassign(organizationId: string, channel: Channel, sender: string): Promise<boolean>;
  /** Every assignment, or one organization's, oldest first. */
  list(organizationId?: string | undefined): Promise<SenderAssignmentRecord[]>;
  /** The organizations assigned `sender` on `channel`, oldest assignment first. */
  owners(channel: Channel, sender: string): Promise<string[]>;
}

/** The repositories, as seen inside or outside a transaction. */
export interface Repositories {
  organizations: OrganizationRepository;
  settings: SettingsRepository;
  profiles: ProfileRepository;
  consent: ConsentHistoryRepository;
  contactLists: ContactListRepository;
  campaigns: CampaignRepository;
  apiKeys: ApiKeyRepository;
  messages: MessageRepository;
  webhooks: WebhookSubscriptionRepository;
  deliveries: DeliveryRepository;
  rateLimits: RateLimitRepository;
  idempotency: IdempotencyRepository;
  retention: RetentionRepository;
  consoleSessions: ConsoleSessionRepository;
  links: LinkRepository;
  privacy: PrivacyRepository;
  suppressions: SuppressionRepository;
  inbound: InboundMessageRepository;
  senders: SenderAssignmentRepository;
}

export interface Storage extends Repositories {
  /**
   * Runs `fn` in one transaction: everything it writes through `tx` commits together when the
   * returned promise resolves, and nothing is written when it rejects or resolves to an error
   * `Result` (anything whose `isErr()` is true, which the transaction then resolves to; build
   * `transaction` with the core's `rollingBackErrors`). Safe with an async `fn`:
   * concurrent transactions never see each other's uncommitted writes, and on a single
   * connection they run one after another.
   */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
  /**
   * Cheap check for `/readyz`: rejects when storage is unusable, with `StorageUnavailableError`
   * when it is out of reach, full or read-only (a probe that succeeds clears `health`).
   */
  ping(): Promise<void>;
  /**
   * Optional: whether storage currently works, as the adapter last saw it (a fault makes it
   * unavailable; the next write or probe that succeeds, available). Wrappers pass it on as is.
   */
  readonly health?: StorageHealth | undefined;
  /** Releases connections; the storage is unusable afterwards. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The outside world
// ---------------------------------------------------------------------------------------------

/** A rendered message handed to the Viber or SMS upstream. */
export interface OutboundMessage {
  messageId: string;
  channel: Channel;
  sender: string;
  phoneNumber: string;
  body: string;
  category: Category;
  ttlSeconds: number;
}

/**
 * The upstream's answer to one dispatch. `provider` names the provider that answered when it
 * is not the `ChannelProvider`'s own `name` (a router answers for the provider it chose).
 */
export type DispatchResult = (
  | {
      status: "accepted";
      /** The provider's id of the message, kept to match its reports; absent when none. */
      providerMessageId?: string | null | undefined;
      /**
       * The sender the provider says it sends from, as it spells it, where its answer says so
       * (a Messaging Service's pool number); absent when it does not.
       */
      sentFrom?: string | null | undefined;
    }
  | { status: "rejected"; error: MessageError }
  /** Viber only: the recipient is not reachable on Viber (the core may fall back to SMS). */
  | { status: "not_on_channel"; error: MessageError }
) & {
  provider?: string | undefined;
  /**
   * Set when the provider provably did not take the message: the request never reached it
   * (DNS, connection refused, TLS, connect timeout), its circuit was open, or it refused the
   * request itself (401/403, 429). Another provider may then carry it without a duplicate.
   */
  notTaken?: boolean | undefined;
};

/** What a dispatch is told besides the message. */
export interface DispatchOptions {
  /**
   * Another provider takes the message when this one provably does not (failover): a request
   * that never reached this provider, or a 429, is then not tried again here but answered at
   * once with `notTaken`.
   */
  failoverReady?: boolean | undefined;
}

/** The longest text a channel's providers take, and the provider whose limit it is. */
export interface TextLimit {
  characters: number;
  /** `TIDINGS_PROVIDER`'s value of the provider with that limit: `twilio`. */
  provider: string;
}

/** A lifecycle report from the upstream, fed back through `recordProviderReport`. */
export type ProviderReport = "delivered" | "seen" | "clicked" | "failed" | "expired";

/**
 * One report from a real upstream, with what identifies the leg it is about, fed back through
 * `recordUpstreamReport`. It is applied only to the message's current leg: a report of a leg
 * the message left (a Viber leg after the SMS fallback), of another provider, or naming
 * another provider message id than the one stored, is ignored.
 */
export interface UpstreamReport {
  messageId: string;
  /** The channel of the leg reported on. */
  channel: Channel;
  /** The provider reporting, as `ChannelProvider.name` spells it. */
  provider: string;
  /** The provider's id of the leg, when the report carries one. */
  providerMessageId: string | null;
  status: ProviderReport;
  /** The provider's own code of a failure (Twilio `30003`, Infobip `EC_UNKNOWN_USER`), or `null`. */
  providerCode: string | null;
  /** A sentence saying what the provider reported, for a failure's `error.message`. */
  description?: string | undefined;
  /**
   * The sender the leg went out from, as the provider's report spells it (Twilio's `From`,
   * Infobip's `sender`, Vonage's `from`), where the report gives it.
   */
  sentFrom?: string | null | undefined;
  /**
   * What the leg cost, when the report says: `amount` as the provider wrote it (a decimal
   * number or string; a negative one, as Twilio writes charges, is made positive), `currency`
   * its ISO 4217 code. Stored once per leg (see `MessageRepository.recordPrice`).
   */
  price?: ReportedPrice | undefined;
}

/** A price as a provider reports it, before it is checked. */
export interface ReportedPrice {
  amount: unknown;
  currency: unknown;
}

/** The seam to the Viber and SMS gateways. */
export interface ChannelProvider {
  readonly name: string;
  /**
   * The name of the provider that carries `channel`, when it is not `name` (a router of one
   * provider per channel answers per channel). Kept on each leg of a message.
   */
  providerFor?(channel: Channel): string;
  /**
   * Hands one message to the upstream. Rejects only on a transport failure. A real provider's
   * later reports arrive at its callbacks (`CallbackApp`), not through the provider.
   */
  dispatch(message: OutboundMessage, options?: DispatchOptions): Promise<DispatchResult>;
  /**
   * The longest text every provider that may carry `channel` takes (the smallest of a failover
   * list), or `null` when none has a limit; absent: no limit known.
   */
  textLimit?(channel: Channel): TextLimit | null;
  /** Stops timers; pending reports are dropped. */
  close?(): Promise<void>;
}

/**
 * A provider that hands its lifecycle reports to the host in process, with no callback to
 * receive: the sandbox (and test doubles shaped like it). A real upstream reports through its
 * callbacks instead.
 */
export interface InProcessReportingProvider extends ChannelProvider {
  /** Called once with the sink for the provider's asynchronous lifecycle reports. */
  onReport(sink: (messageId: string, report: ProviderReport) => Promise<void>): void;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Hard deadline for the whole exchange, in milliseconds. */
  timeoutMs: number;
}

export type WebhookResponse =
  | {
      kind: "response";
      status: number;
      headers: Record<string, string>;
      /** At most the first 2 KiB of the body, as text (what an attempt keeps). */
      body: string;
      durationMs: number;
    }
  | { kind: "error"; error: string; durationMs: number };

/** One signed HTTP POST to a receiver. Never follows redirects; never rejects. */
export interface WebhookTransport {
  post(request: WebhookRequest): Promise<WebhookResponse>;
  close?(): Promise<void>;
}

/** A URL policy's answer: allowed, or refused with a sentence saying why. */
export type UrlVerdict = { allowed: true } | { allowed: false; reason: string };

/** Whether a URL may receive webhooks; checked on create, update and send. */
export interface UrlPolicy {
  check(url: string): Promise<UrlVerdict>;
}

/** How a send ended once handed to the upstream: on its campaign's channel, by SMS instead, or not. */
export type SendOutcome = "sent" | "fell_back_to_sms" | "failed";

/**
 * What the core reports as it works, for the host's metrics (the server counts it with
 * Prometheus). Optional in `Deps`; each method returns at once and never throws.
 */
export interface Telemetry {
  /** A send was stored and handed to the upstream; `channel` is its campaign's channel. */
  messageSent(send: { category: Category; channel: Channel; outcome: SendOutcome }): void;
  /** A short link redirected; `counted` false for a HEAD or a link-preview fetcher. */
  linkFollowed?(counted: boolean): void;
  /** A send was refused by the organization's abuse protection before anything was stored. */
  sendRefused?(reason: SendRefusalReason): void;
  /** A send was stored and handed off to a number of `country` (its region, or `unknown`). */
  sentToCountry?(country: string): void;
  /**
   * A suppression was added by a provider's refusal (`provider`) or through the API or CLI
   * (`api`); inbound opt-outs are reported by the inbound sink's own telemetry.
   */
  suppressionAdded?(source: SuppressionSource): void;
  /** A provider reported what one leg cost (`amount` in `currency`'s unit, never negative). */
  priceReported?(price: {
    provider: string;
    currency: string;
    country: string;
    amount: number;
  }): void;
}

/** Why abuse protection refused a send (`tidings_sends_refused_total{reason}`). */
export type SendRefusalReason =
  | "country_not_allowed"
  | "number_type_blocked"
  | "destination_limit"
  | "prefix_limit"
  | "country_limit";

/**
 * The webhook deliveries waiting to go out, as a storage adapter's `webhookBacklog` reads them
 * for a metrics scrape (not a repository method: one aggregate read, outside any transaction).
 */
export interface WebhookBacklog {
  /** Pending deliveries due at the time asked about (`nextAttemptAt` at or before it). */
  due: number;
  /** The earliest `nextAttemptAt` among them: how late the most overdue one is; `null` when none. */
  oldestDueAt: string | null;
}

/** Encrypts secrets at rest. */
export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws when the sealed text was tampered with or sealed under another key. */
  open(sealed: string): string;
}
