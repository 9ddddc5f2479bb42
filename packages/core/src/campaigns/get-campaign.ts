import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, type NotFoundError, notFound } from "../errors.js";
import type { CampaignRecord, Repositories } from "../ports.js";
import { isPrefixedId } from "../shared/ids.js";
import { useCase } from "../shared/result.js";
import { type CampaignView, toCampaignView } from "./campaign-view.js";

/** 404 for a campaign the organization cannot see (malformed, unknown or another's). */
export const campaignNotFound = (id: string): NotFoundError =>
  notFound("campaign", id, "campaign_not_found");

/** The organization's campaign, or `null`; a malformed id never reaches storage. */
export async function findCampaign(
  repositories: Pick<Repositories, "campaigns">,
  organizationId: string,
  id: string,
): Promise<CampaignRecord | null> {
  if (!isPrefixedId(id, "cmp")) return null;
  return repositories.campaigns.get(organizationId, id);
}

/** One campaign of the caller's organization. */
export function getCampaign(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  campaignId: string,
): ResultAsync<CampaignView, DomainError> {
  return useCase(async () => {
    const campaign = await findCampaign(deps.storage, actor.organizationId, campaignId);
    if (!campaign) return err(campaignNotFound(campaignId));
    return ok(toCampaignView(campaign));
  });
}

/** Every campaign of the caller's organization, oldest first. */
export function listCampaigns(
  deps: Pick<Deps, "storage">,
  actor: Actor,
): ResultAsync<CampaignView[], DomainError> {
  return useCase(async () => {
    const campaigns = await deps.storage.campaigns.list(actor.organizationId);
    return ok(campaigns.map(toCampaignView));
  });
}
