/** SQLite has no boolean: flags are stored as 0 / 1. */
export const toFlag = (value: boolean): 0 | 1 => (value ? 1 : 0);

export const fromFlag = (value: number): boolean => value === 1;

/** A nullable flag, for consent history's `oldValue`. */
export const toFlagOrNull = (value: boolean | null): 0 | 1 | null =>
  value === null ? null : toFlag(value);

export const fromFlagOrNull = (value: number | null): boolean | null =>
  value === null ? null : fromFlag(value);

/** JSON columns are TEXT. */
export const toJson = (value: unknown): string => JSON.stringify(value);

export const toJsonOrNull = (value: unknown): string | null =>
  value === null ? null : JSON.stringify(value);

export function fromJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

export function fromJsonOrNull<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

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
