/**
 * What differs between the SQL databases when a row is read back: how a boolean is stored,
 * how an integer arrives from the driver, and how a JSON column is selected so it reads back
 * as text. Everything else about a row is written once, in `records.ts`.
 */
export interface SqlCodec {
  /** A boolean column's value as read, or `undefined` when it is not a boolean of this database. */
  readFlag(value: unknown): boolean | undefined;
  /** An integer column's value as read, or `undefined` when it is not a safe integer. */
  readInteger(value: unknown): number | undefined;
  /** The select-list entry that reads JSON column `column` (qualified by `alias`) as text. */
  selectJson(column: string, alias: string): string;
}

/** A row as a driver hands it over: column names to values of unknown kind. */
export type SqlRow = Readonly<Record<string, unknown>>;
