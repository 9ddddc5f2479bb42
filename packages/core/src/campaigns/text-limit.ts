import type { Deps } from "../deps.js";
import type { Issue } from "../errors.js";
import type { CampaignRecord, Channel, TextLimit } from "../ports.js";
import { textLength } from "../providers/provider-limits.js";
import { templatePlaceholders } from "./template.js";

/** The providers' titles in sentences, for the providers Tidings ships. */
const TITLES: Record<string, string> = {
  twilio: "Twilio",
  infobip: "Infobip",
  vonage: "Vonage",
  sandbox: "The sandbox",
};

/** The characters a template has whatever its params: its text without its placeholders. */
export function templateFloor(template: string): number {
  let length = 0;
  let from = 0;
  for (const { start, end } of templatePlaceholders(template)) {
    length += textLength(template.slice(from, start));
    from = end;
  }
  return length + textLength(template.slice(from));
}

const channelName = (channel: Channel): string => (channel === "sms" ? "SMS" : "Viber");

/**
 * Why an active campaign's template cannot fit the text limit of the providers that carry its
 * channel (the smallest of a failover list; a Viber campaign that falls back to SMS must fit
 * SMS too), as an issue on `template` naming the limit and the provider; `null` when it fits
 * or no limit is known. Its fixed text is counted: params only make a message longer.
 */
export function textLimitIssue(
  deps: Partial<Pick<Deps, "provider">>,
  campaign: Pick<CampaignRecord, "channel" | "smsFallback" | "template">,
): Issue | null {
  const length = templateFloor(campaign.template);
  const breach = limitBreached(deps, campaign, length);
  if (breach === null) return null;
  return {
    path: "template",
    rule: "text_limit",
    message: `The template has ${length} characters besides its placeholders, but ${breach.words}, so no message of this campaign could be sent; shorten it before the campaign is active.`,
  };
}

/**
 * Why a send's rendered `text` is longer than the providers of its campaign's channel take
 * (and, with SMS fallback, SMS's), as an issue on `params`; `null` when it fits.
 */
export function renderedTextIssue(
  deps: Partial<Pick<Deps, "provider">>,
  campaign: Pick<CampaignRecord, "channel" | "smsFallback">,
  text: string,
): Issue | null {
  const length = textLength(text);
  const breach = limitBreached(deps, campaign, length);
  if (breach === null) return null;
  return {
    path: "params",
    rule: "text_too_long",
    message: `The text rendered from these params has ${length} characters, but ${breach.words}; shorten the params.`,
  };
}

/** The first limit `length` breaks, in words, or `null` when it fits every one. */
function limitBreached(
  deps: Partial<Pick<Deps, "provider">>,
  campaign: Pick<CampaignRecord, "channel" | "smsFallback">,
  length: number,
): { words: string } | null {
  const provider = deps.provider;
  if (provider?.textLimit === undefined) return null;
  const channels: Channel[] =
    campaign.channel === "viber" && campaign.smsFallback ? ["viber", "sms"] : [campaign.channel];
  for (const channel of channels) {
    const limit: TextLimit | null = provider.textLimit(channel);
    if (limit === null || length <= limit.characters) continue;
    const title = TITLES[limit.provider] ?? limit.provider;
    const fallback = channel !== campaign.channel ? " (its SMS fallback)" : "";
    return {
      words: `${title} (${limit.provider}) takes at most ${limit.characters} characters of ${channelName(channel)} text${fallback}`,
    };
  }
  return null;
}
