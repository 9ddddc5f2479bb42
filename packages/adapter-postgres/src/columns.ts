import { type SqlCodec, selectLists, sqlRecords } from "@tidings/core/sql";

/**
 * PostgreSQL's side of the shared row mapping. Flags are BOOLEAN. JSON columns are JSONB,
 * written from text (`$n::text::jsonb`) and selected as text (`col::text`), and integers are
 * accepted as numbers or digit strings (pg answers BIGINT as a string, PGlite as a number), so
 * the mapping never depends on how a driver parses types.
 */
export const postgresCodec: SqlCodec = {
  readFlag: (value) => (typeof value === "boolean" ? value : undefined),
  readInteger: (value) => {
    const number =
      typeof value === "number"
        ? value
        : typeof value === "bigint" || (typeof value === "string" && /^-?\d+$/.test(value))
          ? Number(value)
          : Number.NaN;
    return Number.isSafeInteger(number) ? number : undefined;
  },
  writeFlag: (value) => value,
  placeholder: (position, json) => `$${position}${json === true ? "::text::jsonb" : ""}`,
  selectJson: (column, alias) => `${alias}${column}::text AS ${column}`,
};

/** Each record decoded from its PostgreSQL row. */
export const records = sqlRecords(postgresCodec);

/** Each table's select list, in the order of its INSERT column list. */
export const select = selectLists(postgresCodec);

/** A BIGINT as a number: pg answers strings, PGlite numbers, a custom parser maybe bigints. */
export const fromBigint = (value: unknown): number => Number(value);

/**
 * Whether PostgreSQL refused a statement for what its rows hold (a data exception, a broken
 * constraint), rolled it back (a deadlock, a serialization failure), or gave up on it (a
 * statement or lock timeout): it then wrote nothing, and the same rows one at a time may each
 * fare differently. A lost connection is not one, nor 40003, "statement completion unknown".
 */
export function isRefusedStatement(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code } = error as { code?: unknown };
  return typeof code === "string" && /^(?:2[23][0-9A-Z]{3}|40001|40P01|57014|55P03)$/.test(code);
}

/** Whether `error` is PostgreSQL refusing a write because `constraint` (a unique index) holds. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, constraint: violated } = error as { code?: unknown; constraint?: unknown };
  return code === "23505" && violated === constraint;
}
