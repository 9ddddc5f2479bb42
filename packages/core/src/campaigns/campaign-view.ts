import type { CampaignRecord, Category, Channel } from "../ports.js";
import { type SendingWindowView, toSendingWindowView } from "../schedule/sending-window.js";

/** An API campaign as the core API and the CLI show it. */
export interface CampaignView {
  campaign_id: string;
  name: string;
  channel: Channel;
  sms_fallback: boolean;
  /** The SMS sender of a Viber campaign's fallback; `null`: its `sender`. */
  sms_sender: string | null;
  /** Whether sends rewrite the template's http(s) URLs into tracked short links. */
  track_links: boolean;
  /** When its messages may reach a recipient, in the recipient's local time; `null`: any time. */
  sending_window: SendingWindowView | null;
  /** Countries this campaign may send to, within the organization's settings; `null`: those. */
  allowed_countries: string[] | null;
  category: Category;
  sender: string;
  template: string;
  ttl_seconds: number;
  status: "active" | "inactive";
  created_at: string;
  updated_at: string;
}

/** The view of a stored campaign. */
export function toCampaignView(campaign: CampaignRecord): CampaignView {
  return {
    campaign_id: campaign.id,
    name: campaign.name,
    channel: campaign.channel,
    sms_fallback: campaign.smsFallback,
    sms_sender: campaign.smsSender,
    track_links: campaign.trackLinks,
    sending_window: toSendingWindowView(campaign.sendingWindow),
    allowed_countries: campaign.allowedCountries === null ? null : [...campaign.allowedCountries],
    category: campaign.category,
    sender: campaign.sender,
    template: campaign.template,
    ttl_seconds: campaign.ttlSeconds,
    status: campaign.status,
    created_at: campaign.createdAt,
    updated_at: campaign.updatedAt,
  };
}
