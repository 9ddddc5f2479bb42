import type { Repositories } from "@tidings/core";
import { repositoriesFrom } from "@tidings/core/sql";
import { sqliteAccess } from "./access.js";
import * as factories from "./repositories/index.js";
import type { SqliteConnection, SqliteDatabase } from "./sqlite-database.js";
import { statementCache } from "./sqlite-database.js";
import type { CallRunner, SyncOf } from "./sync-repository.js";
import { toAsync } from "./sync-repository.js";

/** Every repository as synchronous functions over one connection and one statement cache. */
export type SyncRepositories = { [K in keyof Repositories]: SyncOf<Repositories[K]> };

/** The synchronous repositories over `db`; statements are prepared on first use, then reused. */
export function syncRepositories(db: SqliteDatabase): SyncRepositories {
  const sql = statementCache(db);
  return repositoriesFrom<SqliteConnection, SyncRepositories>(factories, {
    db,
    sql,
    access: sqliteAccess(sql),
  });
}

/** The port's repositories, each call scheduled by `run`. */
export function asyncRepositories(sync: SyncRepositories, run: CallRunner): Repositories {
  const made: Record<string, unknown> = {};
  for (const [name, repository] of Object.entries(sync)) {
    made[name] = toAsync(repository as SyncOf<Record<string, never>>, run);
  }
  return made as unknown as Repositories;
}
