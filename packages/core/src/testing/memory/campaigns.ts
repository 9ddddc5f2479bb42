import type { CampaignRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { assignSeq, clone, newestFirst, ofOrganization, ownedBy, storeNew } from "./state.js";

/** Campaigns in memory. */
export function memoryCampaigns(scope: MemoryScope): CampaignRepository {
  return {
    insert: (campaign) =>
      scope.write("campaigns.insert", (s) => {
        storeNew(s.campaigns, campaign.id, campaign, "campaign");
        assignSeq(s, campaign.id);
      }),
    get: (organizationId, id) =>
      scope.read("campaigns.get", (s) => ownedBy(s.campaigns.get(id), organizationId)),
    list: (organizationId) =>
      scope.read("campaigns.list", (s) => ofOrganization(s.campaigns.values(), organizationId)),
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
