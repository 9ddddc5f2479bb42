// What both SQL adapters share: the tables' columns, the row decoders and encoders, the codec
// each database supplies for what differs, the repositories (or their parts) whose SQL is the
// same on both, the migration history, and the async mutex that makes one connection take
// turns. Internal to the adapters; no driver is imported here. Names are listed one by one,
// types on their own line, as in every index.

export { oldMessagesDeleted, stillOpen } from "../retention/old-messages-batch.js";
export type { AsyncMutex } from "../support/async-mutex.js";
export { createAsyncMutex } from "../support/async-mutex.js";
export type { Answer, SqlAccess, SqlDriver, Styled, TableRows } from "./access.js";
export { ONE_PLAN, sqlAccessFor } from "./access.js";
export type { SqlCodec } from "./codec.js";
export { CorruptRowError } from "./corrupt-row-error.js";
export { byDue, isoPlus } from "./delivery-order.js";
export { type ClaimCandidate, fairOrder } from "./fair-order.js";
export { toJson, toJsonOrNull } from "./json.js";
export type { MigrateResult, SchemaChange } from "./migrations.js";
export { SchemaTooNewError, schemaMigrations } from "./migrations.js";
export type { SqlRecords } from "./records.js";
export { sqlRecords } from "./records.js";
export { apiKeyRepository } from "./repositories/api-keys.js";
export { campaignRows } from "./repositories/campaigns.js";
export { consentRepository } from "./repositories/consent.js";
export {
  inboundRepository,
  senderRepository,
  suppressionRepository,
} from "./repositories/consent-loop.js";
export { consoleSessionRows } from "./repositories/console-sessions.js";
export { contactListRows } from "./repositories/contact-lists.js";
export { deliveryReads } from "./repositories/deliveries.js";
export { linkReads } from "./repositories/links.js";
export { messageRows } from "./repositories/messages.js";
export { organizationRepository } from "./repositories/organizations.js";
export { privacyRows } from "./repositories/privacy.js";
export { profileReads } from "./repositories/profiles.js";
export { settingsRepository } from "./repositories/settings.js";
export { webhookRows } from "./repositories/webhooks.js";
export { repositoriesFrom } from "./repositories-from.js";
export type { SqlTable, SqlTableName } from "./tables.js";
export {
  insertColumns,
  insertPlaceholders,
  insertStatement,
  jsonRow,
  rowValues,
  selectColumns,
  selectLists,
  sqlTables,
} from "./tables.js";
