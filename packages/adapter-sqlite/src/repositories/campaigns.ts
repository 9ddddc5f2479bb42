import type { CampaignRecord, CampaignRepository, Category, Channel } from "@tidings/core";
import { fromFlag, toFlag } from "../columns.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

export interface CampaignRow {
  id: string;
  organization_id: string;
  name: string;
  channel: string;
  sms_fallback: number;
  category: string;
  sender: string;
  template: string;
  ttl_seconds: number;
  status: string;
  created_at: string;
  updated_at: string;
}

export const campaignColumns =
  "id, organization_id, name, channel, sms_fallback, category, sender, template, " +
  "ttl_seconds, status, created_at, updated_at";

export const toCampaign = (row: CampaignRow): CampaignRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  channel: row.channel as Channel,
  smsFallback: fromFlag(row.sms_fallback),
  category: row.category as Category,
  sender: row.sender,
  template: row.template,
  ttlSeconds: row.ttl_seconds,
  status: row.status === "active" ? "active" : "inactive",
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const campaignParams = (campaign: CampaignRecord) => ({
  ...campaign,
  smsFallback: toFlag(campaign.smsFallback),
});

/** API campaigns. */
export function campaignRepository(sql: Sql): SyncOf<CampaignRepository> {
  return {
    insert(campaign) {
      sql(
        `INSERT INTO campaigns (${campaignColumns})
         VALUES (@id, @organizationId, @name, @channel, @smsFallback, @category, @sender,
           @template, @ttlSeconds, @status, @createdAt, @updatedAt)`,
      ).run(campaignParams(campaign));
    },
    get(organizationId, id) {
      const row = sql(
        `SELECT ${campaignColumns} FROM campaigns WHERE id = ? AND organization_id = ?`,
      ).get(id, organizationId);
      return row === undefined ? null : toCampaign(row as CampaignRow);
    },
    list(organizationId) {
      const rows = sql(
        `SELECT ${campaignColumns} FROM campaigns WHERE organization_id = ?
         ORDER BY created_at, id`,
      ).all(organizationId) as CampaignRow[];
      return rows.map(toCampaign);
    },
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
