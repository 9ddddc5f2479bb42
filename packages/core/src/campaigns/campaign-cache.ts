import type { CampaignRecord, Repositories, Storage } from "../ports.js";
import { type NoticedMemoryOptions, noticedMemory } from "../support/noticed-memory.js";

/** Storage whose `campaigns.get` may answer from memory, and what keeps that memory true. */
export interface CampaignCache {
  storage: Storage;
  /** A campaign changed, or with `null` any may have: forgotten at once. */
  forget(campaignId: string | null): void;
  /**
   * Whether every change to a campaign is being announced to `forget` (the change notices are
   * arriving). While not, nothing is kept.
   */
  trust(trusted: boolean): void;
}

/**
 * `storage` with campaigns read once and then answered from memory for a few seconds: every
 * send reads its campaign, and on PostgreSQL that read was a round trip of its own. As for API
 * keys (`cachingApiKeys`), memory is used only while `trust(true)` says every change is
 * announced to `forget` (on PostgreSQL, by the schema's triggers over LISTEN/NOTIFY), so a
 * campaign paused or edited by any process is seen here as soon as its notice arrives. A change
 * made through this storage, in a transaction or not, is forgotten here before it answers.
 * Reads inside a transaction go to the database.
 */
export function cachingCampaigns(
  storage: Storage,
  options: NoticedMemoryOptions = {},
): CampaignCache {
  const memory = noticedMemory<CampaignRecord>(options);
  const { forget } = memory;

  /** `repositories` whose campaign changes are forgotten here when made, and in `changed`. */
  const forgetting = (repositories: Repositories, changed: Set<string>): Repositories => ({
    ...repositories,
    campaigns: {
      ...repositories.campaigns,
      async update(campaign) {
        changed.add(campaign.id);
        forget(campaign.id);
        try {
          return await repositories.campaigns.update(campaign);
        } finally {
          // Again once written: a read made meanwhile may have seen the old row.
          forget(campaign.id);
        }
      },
    },
  });

  const direct = forgetting(storage, new Set()).campaigns;

  return {
    storage: {
      ...storage,
      campaigns: {
        ...direct,
        async get(organizationId, id) {
          const campaign = await memory.get(
            id,
            () => storage.campaigns.get(organizationId, id),
            (record) => Object.freeze({ ...record }),
          );
          // Kept by id alone: another organization's campaign is not found, as in storage.
          return campaign?.organizationId === organizationId ? campaign : null;
        },
      },
      async transaction(fn) {
        const changed = new Set<string>();
        try {
          return await storage.transaction((tx) => fn(forgetting(tx, changed)));
        } finally {
          // Again once the change committed: a read made before the commit saw the old row.
          for (const id of changed) forget(id);
        }
      },
    },
    forget,
    trust: memory.trust,
  };
}
