import { describe, expect, it } from "vitest";
import type { Storage } from "../ports.js";
import { manualClock } from "../support/clock.js";
import { aCampaign, anOrganization } from "../testing/contract/fixtures.js";
import { memoryStorage } from "../testing/memory/index.js";
import { cachingCampaigns } from "./campaign-cache.js";

/** Memory storage with an organization and a campaign, counting the campaign reads that reach it. */
async function campaignStore() {
  const inner = memoryStorage();
  const org = anOrganization();
  await inner.organizations.insert(org);
  const campaign = aCampaign({ organizationId: org.id, status: "active" });
  await inner.campaigns.insert(campaign);
  const reads: string[] = [];
  const storage: Storage = {
    ...inner,
    campaigns: {
      ...inner.campaigns,
      get: (organizationId, id) => {
        reads.push(id);
        return inner.campaigns.get(organizationId, id);
      },
    },
  };
  return { inner, storage, org, campaign, reads };
}

describe("cachingCampaigns", () => {
  it("reads every time until trusted, then answers from memory until the time limit", async () => {
    const { storage, org, campaign, reads } = await campaignStore();
    const clock = manualClock();
    const cache = cachingCampaigns(storage, { ttlMs: 5_000, now: clock.now });
    await cache.storage.campaigns.get(org.id, campaign.id);
    expect(reads).toHaveLength(1);
    cache.trust(true);
    expect(await cache.storage.campaigns.get(org.id, campaign.id)).toEqual(campaign);
    expect(await cache.storage.campaigns.get(org.id, campaign.id)).toEqual(campaign);
    expect(reads).toHaveLength(2);
    clock.advance(5_000);
    await cache.storage.campaigns.get(org.id, campaign.id);
    expect(reads).toHaveLength(3);
  });

  it("never answers another organization's campaign from memory", async () => {
    const { storage, org, campaign } = await campaignStore();
    const cache = cachingCampaigns(storage);
    cache.trust(true);
    await cache.storage.campaigns.get(org.id, campaign.id);
    expect(await cache.storage.campaigns.get(anOrganization().id, campaign.id)).toBeNull();
    expect(await cache.storage.campaigns.get(org.id, campaign.id)).toEqual(campaign);
  });

  it("forgets a campaign changed through it, in a transaction or not, and when told", async () => {
    const { inner, storage, org, campaign, reads } = await campaignStore();
    const cache = cachingCampaigns(storage);
    cache.trust(true);
    await cache.storage.campaigns.get(org.id, campaign.id);
    await cache.storage.campaigns.update({ ...campaign, status: "inactive" });
    expect((await cache.storage.campaigns.get(org.id, campaign.id))?.status).toBe("inactive");
    await cache.storage.transaction(async (tx) => {
      await tx.campaigns.update({ ...campaign, name: "Renamed" });
    });
    expect((await cache.storage.campaigns.get(org.id, campaign.id))?.name).toBe("Renamed");
    // Changed behind its back, as another process would: kept until the notice comes.
    await inner.campaigns.update({ ...campaign, sender: "Other" });
    expect((await cache.storage.campaigns.get(org.id, campaign.id))?.sender).toBe("Acme");
    cache.forget(campaign.id);
    expect((await cache.storage.campaigns.get(org.id, campaign.id))?.sender).toBe("Other");
    expect(reads).toHaveLength(4);
    // Notices lost: nothing is kept until they are seen to arrive again.
    cache.trust(false);
    await cache.storage.campaigns.get(org.id, campaign.id);
    await cache.storage.campaigns.get(org.id, campaign.id);
    expect(reads).toHaveLength(6);
  });

  it("does not keep a read that was under way when a campaign changed, and hands out frozen records", async () => {
    const { storage, org, campaign, reads } = await campaignStore();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: Storage = {
      ...storage,
      campaigns: {
        ...storage.campaigns,
        get: async (organizationId, id) => {
          const answer = await storage.campaigns.get(organizationId, id);
          if (reads.length === 1) await held;
          return answer;
        },
      },
    };
    const cache = cachingCampaigns(slow);
    cache.trust(true);
    const read = cache.storage.campaigns.get(org.id, campaign.id);
    cache.forget(campaign.id);
    release();
    await read;
    // Read again, and kept from then on.
    await cache.storage.campaigns.get(org.id, campaign.id);
    const kept = await cache.storage.campaigns.get(org.id, campaign.id);
    expect(reads).toHaveLength(2);
    expect(Object.isFrozen(kept)).toBe(true);
  });
});
