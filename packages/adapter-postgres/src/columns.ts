/**
 * Conversions between records and columns. JSON columns are JSONB, written from text
 * (`$n::text::jsonb`) and read back as text (`col::text`), and BIGINT columns are read with
 * `Number`, so the mapping never depends on how a driver parses types (pg and PGlite differ).
 */

/** A JSON column's parameter: bound as text and cast with `::text::jsonb` in the statement. */
export const toJson = (value: unknown): string => JSON.stringify(value);

export const toJsonOrNull = (value: unknown): string | null =>
  value === null ? null : JSON.stringify(value);

export function fromJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

export function fromJsonOrNull<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/** A BIGINT as a number: pg answers strings, PGlite numbers, a custom parser maybe bigints. */
export const fromBigint = (value: unknown): number => Number(value);

/** Whether `error` is PostgreSQL refusing a write because `constraint` (a unique index) holds. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, constraint: violated } = error as { code?: unknown; constraint?: unknown };
  return code === "23505" && violated === constraint;
}

/** An ISO timestamp `ms` milliseconds after `iso`. */
export const isoPlus = (iso: string, ms: number): string =>
  new Date(Date.parse(iso) + ms).toISOString();
