import { type SqlCodec, selectLists, sqlRecords } from "@tidings/core/sql";

/**
 * SQLite's side of the shared row mapping: it has no boolean, so flags are stored as 0 / 1;
 * integers arrive as numbers; JSON columns are TEXT and are selected as they are.
 */
export const sqliteCodec: SqlCodec = {
  readFlag: (value) => (value === 1 ? true : value === 0 ? false : undefined),
  readInteger: (value) =>
    typeof value === "number" && Number.isSafeInteger(value) ? value : undefined,
  writeFlag: (value) => (value ? 1 : 0),
  placeholder: () => "?",
  selectJson: (column, alias) => alias + column,
};

/** Each record decoded from its SQLite row. */
export const records = sqlRecords(sqliteCodec);

/** Each table's select list, in the order of its INSERT column list. */
export const select = selectLists(sqliteCodec);

/**
 * Whether `error` is SQLite refusing a write because a UNIQUE index on `target` (a
 * `table.column` named in SQLite's message, or an index name) already holds the value.
 */
export function isUniqueViolation(error: unknown, target: string): boolean {
  if (!(error instanceof Error) || !("code" in error)) return false;
  const code = error.code;
  return (
    (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") &&
    error.message.includes(target)
  );
}
