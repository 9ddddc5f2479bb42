import type {
  ApiKeyRecord,
  CampaignRecord,
  ConsentChangeRecord,
  DeliveryAttemptRecord,
  DeliveryRecord,
  IdempotencyRecord,
  MembershipRecord,
  MessageEventRecord,
  MessageRecord,
  ProfileRecord,
  Storage,
  WebhookSubscriptionRecord,
} from "../../ports.js";

/**
 * Raw readers: each adapter reads its own tables directly (plain SQL, or the in-memory maps),
 * bypassing the repositories, so the contract suite checks what is stored and not only what
 * the adapter answers. Every reader sees inactive and deleted rows too, and every organization.
 */
export interface RawReaders {
  profile(id: string): Promise<ProfileRecord | null>;
  /** Memberships of a profile in any list. */
  memberships(profileId: string): Promise<MembershipRecord[]>;
  consentChanges(profileId: string): Promise<ConsentChangeRecord[]>;
  campaign(id: string): Promise<CampaignRecord | null>;
  apiKey(id: string): Promise<ApiKeyRecord | null>;
  message(id: string): Promise<MessageRecord | null>;
  events(messageId: string): Promise<MessageEventRecord[]>;
  webhook(id: string): Promise<WebhookSubscriptionRecord | null>;
  delivery(id: string): Promise<DeliveryRecord | null>;
  /** Every delivery of every organization, oldest first. */
  deliveries(): Promise<DeliveryRecord[]>;
  attempts(deliveryId: string): Promise<DeliveryAttemptRecord[]>;
  idempotency(apiKeyId: string, endpoint: string, key: string): Promise<IdempotencyRecord | null>;
}

/** What an adapter's test file hands the contract suite: a fresh, empty, migrated storage. */
export interface StorageHarness {
  storage: Storage;
  raw: RawReaders;
  /** Releases the storage and anything the harness made (files, schemas). */
  dispose(): Promise<void>;
}
