import { renderTemplate } from "../campaigns/template.js";
import type { LinkSettings } from "../deps.js";
import type { CampaignRecord, NewLink } from "../ports.js";
import { usableLinkBase } from "./link-base.js";
import { newLinkCode } from "./link-code.js";
import { renderTracked, shortLink } from "./tracked-text.js";

/** A message's text as sent, and the links to store with it (none without tracking). */
export interface MessageBody {
  body: string;
  links: NewLink[];
}

/**
 * The text of a new message of `campaign`: the template rendered with `values`, its http(s)
 * URLs turned into short links when the campaign tracks them. Without tracking (or without a
 * usable link base, should the settings have changed since the campaign turned it on, which
 * `settings.untracked` hears of), the text is exactly `renderTemplate`'s.
 */
export function messageBody(
  settings: LinkSettings | undefined,
  campaign: Pick<CampaignRecord, "id" | "template" | "trackLinks">,
  values: Record<string, string>,
  message: { id: string; organizationId: string; createdAt: string },
): MessageBody {
  const base = campaign.trackLinks ? usableLinkBase(settings) : null;
  if (base === null) {
    if (campaign.trackLinks) settings?.untracked?.(campaign.id);
    return { body: renderTemplate(campaign.template, values), links: [] };
  }
  const tracked = renderTracked(
    campaign.template,
    values,
    (code) => shortLink(base, code),
    newLinkCode,
  );
  return {
    body: tracked.body,
    links: tracked.links.map((link) => ({
      code: link.code,
      messageId: message.id,
      organizationId: message.organizationId,
      originalUrl: link.originalUrl,
      createdAt: message.createdAt,
    })),
  };
}
