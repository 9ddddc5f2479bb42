import type { CampaignRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { assertNew, clone, oldestFirst } from "./state.js";

/** Campaigns in memory. */
export function memoryCampaigns(scope: MemoryScope): CampaignRepository {
  return {
    insert: (campaign) =>
      scope.write("campaigns.insert", (s) => {
        assertNew(s.campaigns, campaign.id, "campaign");
        s.campaigns.set(campaign.id, clone(campaign));
      }),
    get: (organizationId, id) =>
      scope.read("campaigns.get", (s) => {
        const campaign = s.campaigns.get(id);
        return campaign?.organizationId === organizationId ? campaign : null;
      }),
    list: (organizationId) =>
      scope.read("campaigns.list", (s) =>
        oldestFirst(
          [...s.campaigns.values()].filter((c) => c.organizationId === organizationId),
          (c) => c.createdAt,
          (c) => c.id,
        ),
      ),
    update: (campaign) =>
      scope.write("campaigns.update", (s) => {
        const stored = s.campaigns.get(campaign.id);
        if (stored?.organizationId !== campaign.organizationId) return false;
        s.campaigns.set(campaign.id, {
          ...clone(campaign),
          id: stored.id,
          organizationId: stored.organizationId,
          createdAt: stored.createdAt,
        });
        return true;
      }),
  };
}
