import type { SqlCodec, SqlRow } from "./codec.js";
import { CorruptRowError } from "./corrupt-row-error.js";

/** A check that a parsed JSON value has the shape a record field needs. */
export interface JsonShape<T> {
  /** What the value should be, for the error message. */
  readonly expected: string;
  is(value: unknown): value is T;
}

/** Typed, checked reads of one row's columns; each throws `CorruptRowError` on a bad value. */
export interface RowReader {
  text(column: string): string;
  textOrNull(column: string): string | null;
  oneOf<T extends string>(column: string, allowed: readonly T[]): T;
  oneOfOrNull<T extends string>(column: string, allowed: readonly T[]): T | null;
  flag(column: string): boolean;
  flagOrNull(column: string): boolean | null;
  integer(column: string): number;
  integerOrNull(column: string): number | null;
  json<T>(column: string, shape: JsonShape<T>): T;
  jsonOrNull<T>(column: string, shape: JsonShape<T>): T | null;
}

/** A reader of `row`, read from `table` through `codec`; `row` must be an object. */
export function rowReader(table: string, source: unknown, codec: SqlCodec): RowReader {
  if (typeof source !== "object" || source === null) {
    throw new CorruptRowError(table, "*", source, "a row object");
  }
  const row = source as SqlRow;
  const corrupt = (column: string, expected: string): never => {
    throw new CorruptRowError(table, column, row[column], expected);
  };
  const present = (column: string): unknown =>
    column in row ? row[column] : corrupt(column, "a selected column");
  const nullable =
    <T>(read: (column: string) => T) =>
    (column: string): T | null =>
      present(column) === null ? null : read(column);

  const text = (column: string): string => {
    const value = present(column);
    return typeof value === "string" ? value : corrupt(column, "text");
  };
  const flag = (column: string): boolean =>
    codec.readFlag(present(column)) ?? corrupt(column, "a boolean");
  const integer = (column: string): number =>
    codec.readInteger(present(column)) ?? corrupt(column, "an integer");
  const json = <T>(column: string, shape: JsonShape<T>): T => {
    const source = text(column);
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch {
      return corrupt(column, `JSON: ${shape.expected}`);
    }
    return shape.is(value) ? value : corrupt(column, shape.expected);
  };

  const oneOf = <T extends string>(column: string, allowed: readonly T[]): T => {
    const value = present(column);
    return (allowed as readonly unknown[]).includes(value)
      ? (value as T)
      : corrupt(column, `one of ${allowed.join(", ")}`);
  };

  return {
    text,
    textOrNull: nullable(text),
    oneOf,
    oneOfOrNull: <T extends string>(column: string, allowed: readonly T[]): T | null =>
      present(column) === null ? null : oneOf(column, allowed),
    flag,
    flagOrNull: nullable(flag),
    integer,
    integerOrNull: nullable(integer),
    json,
    jsonOrNull: <T>(column: string, shape: JsonShape<T>): T | null =>
      present(column) === null ? null : json(column, shape),
  };
}
