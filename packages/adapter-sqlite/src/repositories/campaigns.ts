import type { CampaignRecord, CampaignRepository } from "@tidings/core";
import { insertColumns, sqlTables } from "@tidings/core/sql";
import { records, select, toFlag } from "../columns.js";
import { pageFilter } from "../newest-first.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

const campaignParams = (campaign: CampaignRecord) => ({
  ...campaign,
  smsFallback: toFlag(campaign.smsFallback),
});

/** API campaigns. */
export function campaignRepository(sql: Sql): SyncOf<CampaignRepository> {
  return {
    insert(campaign) {
      sql(
        `INSERT INTO campaigns (${insertColumns(sqlTables.campaigns)})
         VALUES (@id, @organizationId, @name, @channel, @smsFallback, @category, @sender,
           @template, @ttlSeconds, @status, @createdAt, @updatedAt)`,
      ).run(campaignParams(campaign));
    },
    get(organizationId, id) {
      const row = sql(
        `SELECT ${select.campaigns} FROM campaigns WHERE id = ? AND organization_id = ?`,
      ).get(id, organizationId);
      return row === undefined ? null : records.campaign(row);
    },
    list(organizationId) {
      const rows = sql(
        `SELECT ${select.campaigns} FROM campaigns WHERE organization_id = ?
         ORDER BY created_at, id`,
      ).all(organizationId);
      return rows.map(records.campaign);
    },
    listPage(query) {
      const { where, params } = pageFilter(
        [
          ["organization_id = @organizationId", "organizationId", query.organizationId],
          ["status = @status", "status", query.status],
        ],
        query.beforeSeq,
      );
      const rows = sql(
        `SELECT seq, ${select.campaigns} FROM campaigns WHERE ${where}
         ORDER BY seq DESC LIMIT @limit`,
      ).all({ ...params, limit: query.limit });
      return rows.map(records.sequenced("campaigns", records.campaign));
    },
    // One writer at a time: a transaction already holds every row it reads against others.
    lock() {},
    update(campaign) {
      const result = sql(
        `UPDATE campaigns SET name = @name, channel = @channel, sms_fallback = @smsFallback,
           category = @category, sender = @sender, template = @template,
           ttl_seconds = @ttlSeconds, status = @status, updated_at = @updatedAt
         WHERE id = @id AND organization_id = @organizationId`,
      ).run(campaignParams(campaign));
      return result.changes === 1;
    },
  };
}
