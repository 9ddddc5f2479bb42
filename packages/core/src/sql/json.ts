/** A JSON column's parameter: the value as JSON text (both databases bind JSON as text). */
export const toJson = (value: unknown): string => JSON.stringify(value);

/** `toJson`, keeping SQL NULL for `null`. */
export const toJsonOrNull = (value: unknown): string | null =>
  value === null ? null : JSON.stringify(value);
