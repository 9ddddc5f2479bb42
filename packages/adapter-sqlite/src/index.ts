export { keepDatabasePrivate } from "./database-file.js";
export type { MigrateOptions, MigrateResult, Migration } from "./migrations.js";
export { latestSchemaVersion, migrate, migrations, SchemaTooNewError } from "./migrations.js";
export { scheduledMessageCount } from "./scheduled-count.js";
export type { SqliteDatabase, SqliteRunResult, SqliteStatement } from "./sqlite-database.js";
export { sqliteFault } from "./sqlite-faults.js";
export type { SqliteStorageOptions } from "./sqlite-storage.js";
export { sqliteStorage } from "./sqlite-storage.js";
export { webhookBacklog } from "./webhook-backlog.js";
