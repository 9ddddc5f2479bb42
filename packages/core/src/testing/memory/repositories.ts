import type { Repositories } from "../../ports.js";
import { memoryApiKeys } from "./api-keys.js";
import { memoryCampaigns } from "./campaigns.js";
import { memoryConsent } from "./consent.js";
import { memoryInbound, memorySenders, memorySuppressions } from "./consent-loop.js";
import { memoryConsoleSessions } from "./console-sessions.js";
import { memoryContactLists } from "./contact-lists.js";
import { memoryDeliveries } from "./deliveries.js";
import { memoryIdempotency } from "./idempotency.js";
import { memoryLinks } from "./links.js";
import { memoryMessages } from "./messages.js";
import { memoryOrganizations } from "./organizations.js";
import { memoryPrivacy } from "./privacy.js";
import { memoryProfiles } from "./profiles.js";
import { memoryRateLimits } from "./rate-limits.js";
import { memoryRetention } from "./retention.js";
import type { MemoryScope } from "./scope.js";
import { memorySettings } from "./settings.js";
import { memoryWebhooks } from "./webhooks.js";

/** Every repository over one scope (the committed state, or a transaction's draft). */
export function memoryRepositories(scope: MemoryScope): Repositories {
  return {
    organizations: memoryOrganizations(scope),
    settings: memorySettings(scope),
    profiles: memoryProfiles(scope),
    consent: memoryConsent(scope),
    contactLists: memoryContactLists(scope),
    campaigns: memoryCampaigns(scope),
    apiKeys: memoryApiKeys(scope),
    messages: memoryMessages(scope),
    webhooks: memoryWebhooks(scope),
    deliveries: memoryDeliveries(scope),
    rateLimits: memoryRateLimits(scope),
    idempotency: memoryIdempotency(scope),
    retention: memoryRetention(scope),
    consoleSessions: memoryConsoleSessions(scope),
    links: memoryLinks(scope),
    privacy: memoryPrivacy(scope),
    suppressions: memorySuppressions(scope),
    inbound: memoryInbound(scope),
    senders: memorySenders(scope),
  };
}
