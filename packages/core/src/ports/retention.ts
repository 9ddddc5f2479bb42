/**
 * Retention (deleting old messages) and privacy (erasing and exporting a person).
 * The conventions every port follows are in `../ports.ts`.
 */

import type { InboundMessageRecord } from "./consent-loop.js";
import type { IdempotencyRecord } from "./idempotency.js";
import type { MessageError, MessageRecord } from "./messages.js";
import type { ProfileRecord } from "./profiles.js";

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
   * Deletes up to `limit` deliveries of events about no message (`messageId` null:
   * `profile.consent_changed`, `message.received`, `profile.erased`) created before
   * `createdBefore` and not `pending`, each with its attempts: the terms on which a message's
   * deliveries go with it. Skips a delivery another transaction holds (a redelivery may be
   * making it pending again). Returns how many.
   */
  deleteOldEventDeliveries(createdBefore: string, limit: number): Promise<number>;
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
   * Clears the note of one of the organization's suppressions and its links to a profile and
   * an inbound message (all null); the suppression itself stays. `false` when unknown.
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
