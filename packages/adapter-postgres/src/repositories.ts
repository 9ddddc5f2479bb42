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
import type { Sql } from "./sql.js";

/** Every repository over one `Sql` (autocommit, or one open transaction). */
export function repositoriesOver(sql: Sql): Repositories {
  return {
    organizations: organizationRepository(sql),
    profiles: profileRepository(sql),
    consent: consentRepository(sql),
    contactLists: contactListRepository(sql),
    campaigns: campaignRepository(sql),
    apiKeys: apiKeyRepository(sql),
    messages: messageRepository(sql),
    webhooks: webhookRepository(sql),
    deliveries: deliveryRepository(sql),
    rateLimits: rateLimitRepository(sql),
    idempotency: idempotencyRepository(sql),
    retention: retentionRepository(sql),
    consoleSessions: consoleSessionRepository(sql),
  };
}
