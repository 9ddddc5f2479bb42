/**
 * User agents of link-preview fetchers: chat apps and social sites that fetch a link when it
 * is pasted or received, to draw a card. Their visits are not a recipient's click, so they
 * redirect without counting. One list; each entry is a case-insensitive substring of the
 * `User-Agent`, with its source: the vendor's page where it documents its fetcher, otherwise
 * "observed", the token as that app's preview requests carry it in web servers' access logs.
 */
export const LINK_PREVIEW_AGENTS: readonly string[] = [
  // Meta (Facebook, Messenger, Instagram), documented:
  // https://developers.facebook.com/docs/sharing/webmasters/web-crawlers/
  "facebookexternalhit",
  // Meta's second crawler name, same page; Apple's iMessage previews also send it.
  "Facebot",
  // WhatsApp previews, observed: "WhatsApp/2.x.y A" (Meta's crawler page covers Meta apps).
  "WhatsApp",
  // Telegram previews, observed: "TelegramBot (like TwitterBot)".
  "TelegramBot",
  // Slack unfurling, documented: https://api.slack.com/robots ("Slackbot-LinkExpanding").
  "Slackbot",
  // X (Twitter) cards, documented in X's Cards troubleshooting guide ("Twitterbot").
  "Twitterbot",
  // Discord embeds, observed: "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)".
  "Discordbot",
  // Viber previews, observed: the app's fetch names "Viber".
  "Viber",
  // Google's renderer for previews in Google Chat and Docs, documented among Google's
  // special-case crawlers ("Google-PageRenderer").
  "Google-PageRenderer",
  // Skype and Microsoft Teams previews, observed: "SkypeUriPreview Preview/0.5".
  "SkypeUriPreview",
  // LinkedIn post previews, observed: "LinkedInBot/1.0 (compatible; …)".
  "LinkedInBot",
  // Microsoft's Bing preview fetch (Outlook, Teams), observed: "BingPreview/1.0b".
  "BingPreview",
  // Embedly, the preview service behind several apps, observed: "Embedly/0.2".
  "Embedly",
];

const LOWERCASED = LINK_PREVIEW_AGENTS.map((agent) => agent.toLowerCase());

/** Whether a `User-Agent` is a link-preview fetcher's. */
export function isLinkPreviewAgent(userAgent: string | null): boolean {
  if (userAgent === null) return false;
  const lower = userAgent.toLowerCase();
  return LOWERCASED.some((agent) => lower.includes(agent));
}
