/**
 * Cursors are opaque to clients: base64url of the last row's internal sequence (docs/decisions.md
 * "Lists and cursors"), so they stay stable under inserts and deletes.
 */
export const encodeCursor = (seq: number): string => Buffer.from(String(seq)).toString("base64url");

/** The sequence inside a cursor, or null when the text is not a cursor this service made. */
export function decodeCursor(cursor: string): number | null {
  if (cursor.length === 0 || cursor.length > 24 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^(0|[1-9][0-9]{0,15})$/.test(text)) return null;
  const seq = Number(text);
  // Only the canonical encoding is accepted, so every cursor has exactly one spelling.
  return Number.isSafeInteger(seq) && encodeCursor(seq) === cursor ? seq : null;
}
