// What both SQL adapters share: the tables' columns, the row decoders and encoders, the codec
// each database supplies for what differs, the repositories (or their parts) whose SQL is the
// same on both, the migration history, and the async mutex that makes one connection take
// turns. Internal to the adapters; no driver is imported here.

export { oldMessagesDeleted } from "../retention/old-messages-batch.js";
export { type AsyncMutex, createAsyncMutex } from "../shared/async-mutex.js";
export {
  type Answer,
  type SqlAccess,
  type SqlDriver,
  type Styled,
  sqlAccessFor,
  type TableRows,
} from "./access.js";
export type { SqlCodec } from "./codec.js";
export { CorruptRowError } from "./corrupt-row-error.js";
export { byDue, isoPlus } from "./delivery-order.js";
export { type ClaimCandidate, fairOrder } from "./fair-order.js";
export { toJson, toJsonOrNull } from "./json.js";
export {
  type MigrateResult,
  type SchemaChange,
  SchemaTooNewError,
  schemaMigrations,
} from "./migrations.js";
export { type SqlRecords, sqlRecords } from "./records.js";
export { apiKeyRepository } from "./repositories/api-keys.js";
export { campaignRows } from "./repositories/campaigns.js";
export { consentRepository } from "./repositories/consent.js";
export { consoleSessionRows } from "./repositories/console-sessions.js";
export { contactListRows } from "./repositories/contact-lists.js";
export { deliveryReads } from "./repositories/deliveries.js";
export { messageRows } from "./repositories/messages.js";
export { organizationRepository } from "./repositories/organizations.js";
export { webhookRows } from "./repositories/webhooks.js";
export { repositoriesFrom } from "./repositories-from.js";
export {
  insertColumns,
  insertPlaceholders,
  insertStatement,
  rowValues,
  type SqlTable,
  type SqlTableName,
  selectColumns,
  selectLists,
  sqlTables,
} from "./tables.js";
