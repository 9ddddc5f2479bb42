import type { CampaignRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { assertNew, assignSeq, clone, newestFirst, oldestFirst } from "./state.js";

/** Campaigns in memory. */
export function memoryCampaigns(scope: MemoryScope): CampaignRepository {
  return {
    insert: (campaign) =>
      scope.write("campaigns.insert", (s) => {
        assertNew(s.campaigns, campaign.id, "campaign");
        s.campaigns.set(campaign.id, clone(campaign));
        assignSeq(s, campaign.id);
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
    listPage: (query) =>
      scope.read("campaigns.listPage", (s) =>
        newestFirst(
          s,
          [...s.campaigns.values()].filter(
            (c) =>
              c.organizationId === query.organizationId &&
              (query.status === undefined || c.status === query.status),
          ),
          query.beforeSeq,
          query.limit,
        ),
      ),
    // Transactions in memory run one at a time: holding the campaign is already done.
    lock: (_organizationId, _id) => scope.read("campaigns.lock", () => undefined),
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
