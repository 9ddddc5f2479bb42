/** The longest slice of a corrupt value quoted in the error message. */
const QUOTED_LENGTH = 120;

/**
 * A stored row that no record can be made of: a value of the wrong kind, outside its column's
 * allowed set, or unparsable JSON. Raised when the row is read, so corruption written by hand,
 * by an old bug or by a half-applied migration is named at the edge instead of travelling on.
 */
export class CorruptRowError extends Error {
  override readonly name = "CorruptRowError";

  constructor(
    readonly table: string,
    readonly column: string,
    readonly value: unknown,
    readonly expected: string,
  ) {
    super(`corrupt row in ${table}: column ${column} holds ${quote(value)}, expected ${expected}`);
  }
}

function quote(value: unknown): string {
  if (value === undefined) return "nothing (the column was not selected)";
  const text = typeof value === "bigint" ? `${value}n` : (JSON.stringify(value) ?? String(value));
  return text.length > QUOTED_LENGTH ? `${text.slice(0, QUOTED_LENGTH)}…` : text;
}
