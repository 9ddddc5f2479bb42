/**
 * How long a `Retry-After` header asks to wait, in ms: whole seconds (`"3"`) or an HTTP date;
 * `null` when absent or unreadable. A date in the past is 0.
 */
export function retryAfterMs(header: string | null | undefined, nowMs: number): number | null {
  if (header === null || header === undefined) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date names its weekday and month; Date.parse alone would read "-1" as a year.
  if (!/^[A-Za-z]{3}, /.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
