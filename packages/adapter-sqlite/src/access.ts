import { type SqlAccess, sqlAccessFor, sqlTables } from "@tidings/core/sql";
import { sqliteCodec } from "./columns.js";
import type { Sql } from "./sqlite-database.js";

const accessVia = sqlAccessFor(sqliteCodec);

/** SQLite's side of the shared repositories: each statement runs at once, synchronously. */
export const sqliteAccess = (sql: Sql): SqlAccess<false> =>
  accessVia<false>({
    tableName: (name) => sqlTables[name].name,
    rows: (text, values) => sql(text).all(...values),
    run(text, values) {
      sql(text).run(...values);
    },
    map: (answer, fn) => fn(answer),
    inTurn(first, second, combine) {
      const answer = first();
      return combine(answer, second());
    },
  });
