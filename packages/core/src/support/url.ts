/**
 * `text` parsed as a URL, or `null` when it is not one.
 *
 * Never `URL.canParse`: on Node 20, once V8 optimizes the code calling it, it answers `false`
 * for a URL whose host holds a non-ASCII Latin-1 character (`https://bücher.example/`), so a
 * URL it took for the first few thousand calls is refused from then on. `new URL` has no such
 * fast path.
 */
export function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
