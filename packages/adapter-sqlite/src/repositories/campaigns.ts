import type { CampaignRepository } from "@tidings/core";
import { campaignRows } from "@tidings/core/sql";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** API campaigns. */
export function campaignRepository({ access }: SqliteConnection): SyncOf<CampaignRepository> {
  return {
    ...campaignRows(access),
    // One writer at a time: a transaction already holds every row it reads against others.
    lock() {},
  };
}
