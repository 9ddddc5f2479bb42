/** A mount path as `/messaging`: leading slash, no trailing one; `""` for the root. */
export function normalizePrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === "" || prefix === "/") return "";
  const trimmed = prefix.replace(/\/+$/, "");
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/** The request target with the prefix removed, or `null` when it is outside the prefix. */
export function unprefixed(url: string, prefix: string): string | null {
  if (prefix === "") return url;
  if (url === prefix) return "/";
  if (url.startsWith(`${prefix}/`)) return url.slice(prefix.length);
  if (url.startsWith(`${prefix}?`)) return `/${url.slice(prefix.length)}`;
  return null;
}
