/**
 * Storage as a whole: every repository, and the storage's own life.
 * The conventions every port follows are in `../ports.ts`.
 */

import type { ApiKeyRepository, ConsoleSessionRepository } from "./access.js";
import type { CampaignRepository } from "./campaigns.js";
import type {
  InboundMessageRepository,
  SenderAssignmentRepository,
  SuppressionRepository,
} from "./consent-loop.js";
import type { IdempotencyRepository } from "./idempotency.js";
import type { LinkRepository, MessageRepository } from "./messages.js";
import type { OrganizationRepository, SettingsRepository } from "./organizations.js";
import type {
  ConsentHistoryRepository,
  ContactListRepository,
  ProfileRepository,
} from "./profiles.js";
import type { RateLimitRepository } from "./rate-limits.js";
import type { PrivacyRepository, RetentionRepository } from "./retention.js";
import type { DeliveryRepository, WebhookSubscriptionRepository } from "./webhooks.js";

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

/**
 * What a request that failed for want of storage left behind: `unchanged` when nothing was
 * written (the transaction never reached COMMIT, or the connection was never made), so any
 * retry is safe; `unknown` when it may have been written (the connection broke during COMMIT,
 * or a send's message was stored and handed to the provider before the fault), so a retry is
 * safe only with the same `Idempotency-Key`.
 */
export type StorageFaultOutcome = "unchanged" | "unknown";

/** Why storage is unavailable, as far as the adapter can tell. */
export type StorageFaultReason =
  /** The database server cannot be reached, or dropped the connection. */
  | "unreachable"
  /** The disk (or the database server's disk) is full. */
  | "disk_full"
  /** The database or its file system accepts no writes. */
  | "read_only"
  /** The operating system reported an I/O error. */
  | "io_error";

/** What a storage adapter throws when the database cannot be used at all for now (`StorageUnavailableError`). */
export interface StorageFault extends Error {
  readonly reason: StorageFaultReason;
  readonly outcome: StorageFaultOutcome;
}

/**
 * Whether storage works, as its adapter last saw it: a fault makes it unavailable, and the next
 * write or probe that succeeds makes it available again. Listeners hear each change once, so
 * an outage is reported once however many requests it fails.
 */
export interface StorageHealth {
  /** `true` unless the last write or probe failed with `StorageUnavailableError`. */
  isAvailable(): boolean;
  /** When storage became unavailable (epoch ms), or `null` while it is available. */
  unavailableSince(): number | null;
  /** Calls `listener` at each change; returns what removes it. */
  onChange(listener: (change: StorageHealthChange) => void): () => void;
}

export type StorageHealthChange =
  | { available: false; error: StorageFault }
  | { available: true; unavailableForMs: number };
