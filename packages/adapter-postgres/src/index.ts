// @tidings/adapter-postgres: Tidings storage on PostgreSQL, shared by any number of processes.

export type { AnalyzeOptions } from "./analyze.js";
export { analyzeNewTables } from "./analyze.js";
export type { MigrateOptions, MigrateResult, Migration } from "./migrations.js";
export {
  latestSchemaVersion,
  migrate,
  migrations,
  SchemaTooNewError,
  schemaVersion,
} from "./migrations.js";
export type {
  ListenOptions,
  PgListeningConnection,
  PgListeningPool,
  PgNativeListener,
  PgNotification,
} from "./notifications.js";
export {
  API_KEYS_CHANNEL,
  DELIVERIES_CHANNEL,
  keyNoticeHeartbeat,
  listenForDeliveries,
  listenForKeyChanges,
} from "./notifications.js";
export type {
  PgClient,
  PgPool,
  PgPoolConnection,
  PgQueryable,
  PgTransactor,
} from "./pg-client.js";
export { boundedPoolOptions, singleConnection } from "./pg-client.js";
export { pgFault } from "./pg-faults.js";
export type { PostgresStorageOptions } from "./postgres-storage.js";
export { postgresStorage } from "./postgres-storage.js";
export type {
  PgNamedQuery,
  PgNamingConnection,
  PgNamingPool,
  PreparedStatementsOptions,
} from "./prepared-statements.js";
export { preparedStatements } from "./prepared-statements.js";
export { scheduledMessageCount } from "./scheduled-count.js";
export { DEFAULT_SCHEMA } from "./tables.js";
export { webhookBacklog } from "./webhook-backlog.js";
