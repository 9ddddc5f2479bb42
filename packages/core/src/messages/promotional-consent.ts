import { err, ok, type Result } from "neverthrow";
import type { ForbiddenError } from "../errors.js";
import type { CampaignRecord, Channel, ProfileRecord } from "../ports.js";

const hasConsent = (profile: ProfileRecord, channel: Channel): boolean =>
  channel === "viber" ? profile.viberMarketingConsent : profile.smsMarketingConsent;

/** The 403 of docs/api.md: promotional consent was not found for the profile. */
const consentMissing = (channel: Channel): ForbiddenError => ({
  type: "forbidden",
  code: "consent_missing",
  message: `Promotional consent was not found for the profile on the ${channel} channel.`,
});

/**
 * Whether a campaign may message this profile, and whether the message may fall back to SMS.
 * Promotional campaigns need consent on the campaign's own channel (else 403); falling back
 * from Viber to SMS additionally needs SMS consent, and without it the message fails instead
 * of falling back (docs/decisions.md "Promotional consent"). OTP and Transactional need no consent.
 */
export function checkDeliveryConsent(
  campaign: Pick<CampaignRecord, "category" | "channel" | "smsFallback">,
  profile: ProfileRecord,
): Result<{ smsFallbackAllowed: boolean }, ForbiddenError> {
  const promotional = campaign.category === "promotional";
  if (promotional && !hasConsent(profile, campaign.channel)) {
    return err(consentMissing(campaign.channel));
  }
  const fallbackConfigured = campaign.channel === "viber" && campaign.smsFallback;
  return ok({
    smsFallbackAllowed: fallbackConfigured && (!promotional || hasConsent(profile, "sms")),
  });
}
