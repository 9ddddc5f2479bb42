// Each schema version's change, under the name core's SCHEMA_VERSIONS gives it (which orders them).
export { initialSchema } from "./0001-initial-schema.js";
export { retentionIndexes } from "./0002-retention.js";
export { consoleSchema } from "./0003-console.js";
export { operatorApiSchema } from "./0004-operator-api.js";
export { fairDeliverySchema } from "./0005-fair-delivery.js";
export { rateLimitCounts } from "./0006-rate-limit-counts.js";
export { sentMessagesExpiry } from "./0007-sent-messages-expiry.js";
export { apiKeyChangeNotices } from "./0008-api-key-change-notices.js";
export { rateLimitCountsKept } from "./0009-rate-limit-counts-kept.js";
export { messageProviderLegs } from "./0010-message-provider-legs.js";
export { sendLookupNotices } from "./0011-send-lookup-notices.js";
export { trackedLinks } from "./0012-tracked-links.js";
export { rateLimitRecountOnce } from "./0013-rate-limit-recount-once.js";
export { recoveryPointGuard } from "./0014-recovery-point-guard.js";
export { deliveriesFillfactor } from "./0015-deliveries-fillfactor.js";
export { rateLimitRecountOnEvidence } from "./0016-rate-limit-recount-on-evidence.js";
export { abuseProtection } from "./0017-abuse-protection.js";
