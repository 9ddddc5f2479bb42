/**
 * A URL as it may be shown or logged: scheme, host (with port) and path only. Query strings
 * and fragments often carry a receiver's tokens, and user info its password, so none of them
 * ever leaves storage.
 */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    // Not a URL the API would have accepted; cut at the first query or fragment mark anyway.
    return url.split(/[?#]/, 1)[0] ?? "";
  }
}
