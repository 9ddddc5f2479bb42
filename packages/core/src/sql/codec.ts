/**
 * What differs between the SQL databases when a row is written or read back: how a boolean is
 * stored, how an integer arrives from the driver, how a parameter is written in the SQL text,
 * and how a JSON column is bound and selected (as text both ways). Everything else about a row
 * is written once, in `records.ts` and `tables.ts`.
 */
export interface SqlCodec {
  /** A boolean column's value as read, or `undefined` when it is not a boolean of this database. */
  readFlag(value: unknown): boolean | undefined;
  /** An integer column's value as read, or `undefined` when it is not a safe integer. */
  readInteger(value: unknown): number | undefined;
  /** A boolean as this database stores it. */
  writeFlag(value: boolean): unknown;
  /**
   * The placeholder of the statement's `position`-th parameter (from 1), for a JSON column
   * when `json` is set (its value is bound as JSON text).
   */
  placeholder(position: number, json?: boolean): string;
  /** The select-list entry that reads JSON column `column` (qualified by `alias`) as text. */
  selectJson(column: string, alias: string): string;
}

/** A row as a driver hands it over: column names to values of unknown kind. */
export type SqlRow = Readonly<Record<string, unknown>>;
