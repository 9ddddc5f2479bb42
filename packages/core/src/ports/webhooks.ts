/**
 * Webhook subscriptions, deliveries and the transport that makes them.
 * The conventions every port follows are in `../ports.ts`.
 */

import type { Sequenced } from "./time-and-ids.js";

export type Topic =
  | "message.sent"
  | "message.delivered"
  | "message.seen"
  | "message.clicked"
  | "message.failed"
  | "message.expired"
  | "message.cancelled";

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
