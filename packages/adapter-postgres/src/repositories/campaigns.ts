import type { CampaignRepository } from "@tidings/core";
import { campaignRows } from "@tidings/core/sql";
import type { PgConnection } from "../sql.js";

/** API campaigns. */
export function campaignRepository({ access, sql }: PgConnection): CampaignRepository {
  return {
    ...campaignRows(access),
    async lock(organizationId, id) {
      // A row lock held to the end of the transaction: the next writer's read waits for it.
      await sql.rows(
        `SELECT 1 FROM ${sql.tables.campaigns} WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
        [id, organizationId],
      );
    },
  };
}
