import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, type NotFoundError, notFound } from "../errors.js";
import type { CampaignRecord, Repositories } from "../ports.js";
import { isPrefixedId } from "../support/ids.js";
import { newestFirstPage, parseListQuery } from "../support/newest-first.js";
import type { Page } from "../support/page.js";
import { useCase } from "../support/result.js";
import { type ShowOne, showOne } from "../support/show-one.js";
import { listCampaignsQuery } from "./campaign-input.js";
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
export const getCampaign: ShowOne<CampaignView> = showOne(
  "getCampaign",
  findCampaign,
  campaignNotFound,
  (campaign) => ok(toCampaignView(campaign)),
);

/**
 * A page of the caller's organization's campaigns, newest first, optionally by status
 * (`{ status?, limit?, cursor? }` as query strings).
 */
export function listCampaigns(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  query: unknown = {},
): ResultAsync<Page<CampaignView>, DomainError> {
  return useCase("listCampaigns", async () => {
    const parsed = parseListQuery(listCampaignsQuery, query);
    if (parsed.isErr()) return err(parsed.error);
    const { filters, pageSize, beforeSeq } = parsed.value;
    const rows = await deps.storage.campaigns.listPage({
      organizationId: actor.organizationId,
      status: filters.status,
      beforeSeq,
      limit: pageSize + 1,
    });
    return ok(newestFirstPage(rows, pageSize, toCampaignView));
  });
}
