import type { ConflictError } from "../errors.js";
import type { CampaignRecord, Channel, Repositories } from "../ports.js";

/** A numeric sender: a phone number or a short code, which an operator may assign. */
const isNumeric = (sender: string): boolean => /^\+?[0-9]{3,15}$/.test(sender);

/** The senders a campaign sends from, by channel (a Viber campaign's fallback SMS too). */
const sendersOf = (
  campaign: Pick<CampaignRecord, "channel" | "sender" | "smsSender" | "smsFallback">,
): Array<[Channel, string]> => {
  const senders: Array<[Channel, string]> = [[campaign.channel, campaign.sender]];
  if (campaign.channel === "viber" && campaign.smsFallback) {
    senders.push(["sms", campaign.smsSender ?? campaign.sender]);
  }
  return senders;
};

/**
 * 409 `sender_taken` when a numeric sender of the campaign is assigned to other organizations
 * only: the replies to it belong to them, so this organization may not send from it.
 */
export async function checkSenderFree(
  repos: Pick<Repositories, "senders">,
  organizationId: string,
  campaign: Pick<CampaignRecord, "id" | "channel" | "sender" | "smsSender" | "smsFallback">,
): Promise<ConflictError | null> {
  for (const [channel, sender] of sendersOf(campaign)) {
    if (!isNumeric(sender)) continue;
    const owners = await repos.senders.owners(channel, sender);
    if (owners.length > 0 && !owners.includes(organizationId)) {
      return {
        type: "conflict",
        code: "sender_taken",
        message: `The ${channel} sender ${JSON.stringify(sender)} is assigned to another organization.`,
        conflicts: [{ id: campaign.id, reason: "sender_taken" }],
        issues: [
          {
            path: channel === campaign.channel ? "sender" : "sms_sender",
            rule: "sender_taken",
            message: "is assigned to another organization.",
          },
        ],
      };
    }
  }
  return null;
}
