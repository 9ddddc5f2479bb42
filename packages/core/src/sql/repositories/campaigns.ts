import type { CampaignRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/** Campaigns but their lock, which each database takes its own way. */
export function campaignRows<A extends boolean>(
  access: SqlAccess<A>,
): Styled<Omit<CampaignRepository, "lock">, A> {
  const campaigns = access.table("campaigns");
  return {
    insert: (campaign) => campaigns.insert(campaign),
    get: (organizationId, id) =>
      campaigns.one("id = ? AND organization_id = ?", [id, organizationId]),
    list: (organizationId) =>
      campaigns.many("organization_id = ? ORDER BY created_at, id", [organizationId]),
    listPage: (query) => access.page("campaigns", query),
    update: ({ id, organizationId, createdAt: _, ...fields }) =>
      access.map(
        campaigns.update(fields, "id = ? AND organization_id = ?", [id, organizationId]),
        (updated) => updated === 1,
      ),
  };
}
