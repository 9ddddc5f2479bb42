import type { Repositories } from "@tidings/core";
import { apiKeyRepository } from "./repositories/api-keys.js";
import { campaignRepository } from "./repositories/campaigns.js";
import { consentRepository } from "./repositories/consent.js";
import { consoleSessionRepository } from "./repositories/console-sessions.js";
import { contactListRepository } from "./repositories/contact-lists.js";
import { deliveryRepository } from "./repositories/deliveries.js";
import { idempotencyRepository } from "./repositories/idempotency.js";
import { messageRepository } from "./repositories/messages.js";
import { organizationRepository } from "./repositories/organizations.js";
import { profileRepository } from "./repositories/profiles.js";
import { rateLimitRepository } from "./repositories/rate-limits.js";
import { retentionRepository } from "./repositories/retention.js";
import { webhookRepository } from "./repositories/webhooks.js";
import type { SqliteDatabase } from "./sqlite-database.js";
import { statementCache } from "./sqlite-database.js";
import type { CallRunner, SyncOf } from "./sync-repository.js";
import { toAsync } from "./sync-repository.js";

/** Every repository as synchronous functions over one connection and one statement cache. */
export type SyncRepositories = { [K in keyof Repositories]: SyncOf<Repositories[K]> };

/** The synchronous repositories over `db`; statements are prepared on first use, then reused. */
export function syncRepositories(db: SqliteDatabase): SyncRepositories {
  const sql = statementCache(db);
  return {
    organizations: organizationRepository(sql),
    profiles: profileRepository(db, sql),
    consent: consentRepository(sql),
    contactLists: contactListRepository(sql),
    campaigns: campaignRepository(sql),
    apiKeys: apiKeyRepository(sql),
    messages: messageRepository(sql),
    webhooks: webhookRepository(sql),
    deliveries: deliveryRepository(db, sql),
    rateLimits: rateLimitRepository(db, sql),
    idempotency: idempotencyRepository(db, sql),
    retention: retentionRepository(db, sql),
    consoleSessions: consoleSessionRepository(sql),
  };
}

/** The port's repositories, each call scheduled by `run`. */
export function asyncRepositories(sync: SyncRepositories, run: CallRunner): Repositories {
  return {
    organizations: toAsync(sync.organizations, run),
    profiles: toAsync(sync.profiles, run),
    consent: toAsync(sync.consent, run),
    contactLists: toAsync(sync.contactLists, run),
    campaigns: toAsync(sync.campaigns, run),
    apiKeys: toAsync(sync.apiKeys, run),
    messages: toAsync(sync.messages, run),
    webhooks: toAsync(sync.webhooks, run),
    deliveries: toAsync(sync.deliveries, run),
    rateLimits: toAsync(sync.rateLimits, run),
    idempotency: toAsync(sync.idempotency, run),
    retention: toAsync(sync.retention, run),
    consoleSessions: toAsync(sync.consoleSessions, run),
  };
}
