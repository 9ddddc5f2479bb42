/**
 * Suppressions, inbound messages and the senders assigned to organizations.
 * The conventions every port follows are in `../ports.ts`.
 */

import type { Channel } from "./campaigns.js";

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
  /**
   * The profile that had the number when the suppression was added, and the inbound message
   * that asked for it: where the organization knows the number, so a list shows it while that
   * profile still has it or that message is kept. Erasure clears both.
   */
  profileId: string | null;
  inboundId: string | null;
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
  /**
   * Names `profileId` as the profile that has the number of the organization's suppressions
   * `ids` (one created or given the number after they were added); how many it wrote.
   */
  linkProfile(organizationId: string, ids: readonly string[], profileId: string): Promise<number>;
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
  /** Those of the organization's inbound messages with one of `ids` still kept, in no order. */
  getMany(organizationId: string, ids: readonly string[]): Promise<InboundMessageRecord[]>;
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

// What a provider's inbound route hands to core: one message a person sent to one of our
// senders, already verified as the provider's own request, not yet normalised or owned.

/** The channels a person can write to us on. */
export type InboundChannel = "sms" | "viber";

/** What a provider itself said the message was (Twilio's `OptOutType`, for example). */
export type ProviderKeywordClass = "opt_out" | "opt_in" | "help";

/** One inbound message, as a provider's route read it from the provider's request. */
export interface InboundReport {
  /** The provider that brought it: `twilio`, `infobip`, `vonage`, `telnyx` or `sandbox`. */
  provider: string;
  /** The provider's id of this inbound message: with `provider`, the key that stores it once. */
  providerMessageId: string;
  channel: InboundChannel;
  /** The person's number as the provider gave it (core normalises it to E.164). */
  from: string;
  /** Our sender it was written to, as the provider gave it (a number, short code or service id). */
  to: string;
  /** The text as the person wrote it. */
  text: string;
  /** When the provider received it, where it says so. */
  receivedAt: Date | null;
  /** The provider's own reading of the text, which wins over keyword matching where present. */
  providerKeywordClass: ProviderKeywordClass | null;
}

/**
 * What storing an inbound message came to. A route answers 200 for every outcome (the provider
 * has nothing to retry); a sink that cannot reach storage throws, and the route answers 503.
 */
export type InboundOutcome =
  /** Stored for its owners, with its effects (opt-out, opt-in) applied and its events queued. */
  | "stored"
  /** The same provider message was stored before: nothing added, nothing reported again. */
  | "duplicate"
  /** `from` is not a phone number: logged, nothing stored. */
  | "bad_sender"
  /** No organization owns `to` (nobody sent from it to `from`, nobody was assigned it). */
  | "no_owner";

/** Where a provider's inbound route hands what it verified; core's use case implements it. */
export interface InboundSink {
  receive(report: InboundReport): Promise<InboundOutcome>;
}
