/**
 * Whether `value` is an error `Result`. Duck-typed on `isErr()` so a `Result` made by another
 * copy of neverthrow (an embedder's own) counts too.
 */
export function isErrResult(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const isErr = (value as { isErr?: unknown }).isErr;
  return typeof isErr === "function" && isErr.call(value) === true;
}
