import { findWebUrls } from "../campaigns/link-detection.js";
import type { LinkRecord, MessageRecord } from "../ports.js";
import { shownUrl } from "../support/shown-url.js";
import { shortLink } from "./tracked-text.js";

/** A tracked link of a message as the message view shows it. */
export interface LinkView {
  /** The short link the message carried. */
  url: string;
  /** Scheme, host and path of the URL it stands for: a query string may carry a token. */
  original_url: string;
  /** Counted clicks (not HEAD requests, not link-preview fetchers). */
  clicks: number;
  first_clicked_at: string | null;
  last_clicked_at: string | null;
}

/**
 * A message's links in the order they appear in its text, each `url` as the text carries it
 * (the link base may have changed since); `baseUrl` is the link base now, for a link the text
 * does not show whole (a relative `/l/{code}` when none is set).
 */
export function toLinkViews(
  message: Pick<MessageRecord, "body">,
  links: readonly LinkRecord[],
  baseUrl: string | null,
): LinkView[] {
  if (links.length === 0) return [];
  const at = (link: LinkRecord) => message.body.indexOf(`/l/${link.code}`);
  const carried = findWebUrls(message.body).map((span) => message.body.slice(span.start, span.end));
  const urlOf = (link: LinkRecord): string =>
    carried.find((url) => url.endsWith(`/l/${link.code}`)) ??
    (baseUrl === null ? `/l/${link.code}` : shortLink(baseUrl, link.code));
  return [...links]
    .sort((a, b) => at(a) - at(b))
    .map((link) => ({
      url: urlOf(link),
      original_url: shownUrl(link.originalUrl),
      clicks: link.clicks,
      first_clicked_at: link.firstClickedAt,
      last_clicked_at: link.lastClickedAt,
    }));
}
