import type { SqlAccess } from "@tidings/core/sql";
import { sqlAccessFor } from "@tidings/core/sql";
import { postgresCodec } from "./columns.js";
import type { Sql } from "./sql.js";

const accessVia = sqlAccessFor(postgresCodec);

/** PostgreSQL's side of the shared repositories: each statement answers a promise. */
export const postgresAccess = (sql: Sql): SqlAccess<true> =>
  accessVia<true>({
    tableName: (name) => sql.tables[name],
    rows: (text, values) => sql.rows(text, [...values]),
    run: (text, values) => sql.run(text, [...values]),
    map: async (answer, fn) => fn(await answer),
    async inTurn(first, second, combine) {
      const answer = await first();
      return combine(answer, await second());
    },
  });
