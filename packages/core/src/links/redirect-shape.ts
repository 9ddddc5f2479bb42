// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const REDIRECTABLE = /^https?:[^\s\u0000-\u001f\u007f]*$/iu;

/**
 * Whether `url` has the shape every trackable URL has, checked without parsing it: an `http:`
 * or `https:` scheme and no whitespace or control character (nothing a `Location` header
 * cannot carry). Cheap enough for every read of a stored link, where a URL without it was
 * written behind the storage's back and must never become a redirect.
 */
export function hasRedirectableShape(url: string): boolean {
  return REDIRECTABLE.test(url);
}
