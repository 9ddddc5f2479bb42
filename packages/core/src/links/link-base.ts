import type { LinkSettings } from "../deps.js";
import type { Issue } from "../errors.js";
import { parseUrl } from "../support/url.js";

/** The base short links are made under, or `null` when tracking may not be used. */
export function usableLinkBase(settings: LinkSettings | undefined): string | null {
  const base = settings?.baseUrl ?? null;
  const parsed = base === null ? null : parseUrl(base);
  if (base === null || parsed === null) return null;
  const { protocol } = parsed;
  if (protocol === "https:") return base;
  return protocol === "http:" && settings?.dev === true ? base : null;
}

/**
 * Why a campaign may not turn tracking on, or `null` when it may: outside development, short
 * links must be `https`, since a recipient's phone opens them and an operator's redirect on
 * plain http could be rewritten on the way.
 */
export function trackingRefusal(settings: LinkSettings | undefined): Issue | null {
  if (usableLinkBase(settings) !== null) return null;
  return {
    path: "track_links",
    rule: "https_link_base",
    message:
      "Link tracking needs an https base for short links: set TIDINGS_LINK_BASE_URL (or TIDINGS_PUBLIC_URL) to an https URL.",
  };
}
