// Each repository's factory under the port's name: `repositoriesFrom` makes one of each. Where
// the SQL is the same on both databases, the repository (or most of it) is the shared one.
export {
  apiKeyRepository as apiKeys,
  consentRepository as consent,
  inboundRepository as inbound,
  organizationRepository as organizations,
  senderRepository as senders,
  settingsRepository as settings,
} from "@tidings/core/sql";
export { campaignRepository as campaigns } from "./campaigns.js";
export { consoleSessionRepository as consoleSessions } from "./console-sessions.js";
export { contactListRepository as contactLists } from "./contact-lists.js";
export { deliveryRepository as deliveries } from "./deliveries.js";
export { idempotencyRepository as idempotency } from "./idempotency.js";
export { linkRepository as links } from "./links.js";
export { messageRepository as messages } from "./messages.js";
export { privacyRepository as privacy } from "./privacy.js";
export { profileRepository as profiles } from "./profiles.js";
export { rateLimitRepository as rateLimits } from "./rate-limits.js";
export { retentionRepository as retention } from "./retention.js";
export { suppressionRepository as suppressions } from "./suppressions.js";
export { webhookRepository as webhooks } from "./webhooks.js";
