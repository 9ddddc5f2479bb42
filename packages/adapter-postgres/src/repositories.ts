import type { Repositories } from "@tidings/core";
import { repositoriesFrom } from "@tidings/core/sql";
import { postgresAccess } from "./access.js";
import * as factories from "./repositories/index.js";
import type { PgConnection, Sql } from "./sql.js";

/** Every repository over one `Sql` (autocommit, or one open transaction). */
export const repositoriesOver = (sql: Sql): Repositories =>
  repositoriesFrom<PgConnection, Repositories>(factories, { sql, access: postgresAccess(sql) });
