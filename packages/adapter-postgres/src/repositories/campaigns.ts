import type { CampaignRecord, CampaignRepository, Category, Channel } from "@tidings/core";
import type { Sql } from "../sql.js";

export interface CampaignRow {
  id: string;
  organization_id: string;
  name: string;
  channel: string;
  sms_fallback: boolean;
  category: string;
  sender: string;
  template: string;
  ttl_seconds: number;
  status: string;
  created_at: string;
  updated_at: string;
}

export const campaignColumns =
  "id, organization_id, name, channel, sms_fallback, category, sender, template, ttl_seconds, " +
  "status, created_at, updated_at";

export const toCampaign = (row: CampaignRow): CampaignRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  channel: row.channel as Channel,
  smsFallback: row.sms_fallback,
  category: row.category as Category,
  sender: row.sender,
  template: row.template,
  ttlSeconds: row.ttl_seconds,
  status: row.status === "active" ? "active" : "inactive",
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** API campaigns (managed in the CMS; the API only reads them). */
export function campaignRepository(sql: Sql): CampaignRepository {
  const t = sql.tables;
  const select = `SELECT ${campaignColumns} FROM ${t.campaigns}`;
  return {
    async insert(c) {
      await sql.rows(
        `INSERT INTO ${t.campaigns} (${campaignColumns})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          c.id,
          c.organizationId,
          c.name,
          c.channel,
          c.smsFallback,
          c.category,
          c.sender,
          c.template,
          c.ttlSeconds,
          c.status,
          c.createdAt,
          c.updatedAt,
        ],
      );
    },
    async get(organizationId, id) {
      const rows = await sql.rows<CampaignRow>(`${select} WHERE id = $1 AND organization_id = $2`, [
        id,
        organizationId,
      ]);
      return rows[0] === undefined ? null : toCampaign(rows[0]);
    },
    async list(organizationId) {
      const rows = await sql.rows<CampaignRow>(
        `${select} WHERE organization_id = $1 ORDER BY created_at, id`,
        [organizationId],
      );
      return rows.map(toCampaign);
    },
    async update(c) {
      const rows = await sql.rows(
        `UPDATE ${t.campaigns} SET name = $3, channel = $4, sms_fallback = $5, category = $6,
           sender = $7, template = $8, ttl_seconds = $9, status = $10, updated_at = $11
         WHERE id = $1 AND organization_id = $2 RETURNING id`,
        [
          c.id,
          c.organizationId,
          c.name,
          c.channel,
          c.smsFallback,
          c.category,
          c.sender,
          c.template,
          c.ttlSeconds,
          c.status,
          c.updatedAt,
        ],
      );
      return rows.length === 1;
    },
  };
}
