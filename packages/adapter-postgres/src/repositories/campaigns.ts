import type { CampaignRepository } from "@tidings/core";
import { insertColumns, sqlTables } from "@tidings/core/sql";
import { select as columns, records } from "../columns.js";
import { pageFilter } from "../newest-first.js";
import type { Sql } from "../sql.js";

/** API campaigns (managed in the CMS; the API only reads them). */
export function campaignRepository(sql: Sql): CampaignRepository {
  const t = sql.tables;
  const select = `SELECT ${columns.campaigns} FROM ${t.campaigns}`;
  return {
    async insert(c) {
      await sql.rows(
        `INSERT INTO ${t.campaigns} (${insertColumns(sqlTables.campaigns)})
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
      const rows = await sql.rows(`${select} WHERE id = $1 AND organization_id = $2`, [
        id,
        organizationId,
      ]);
      return rows[0] === undefined ? null : records.campaign(rows[0]);
    },
    async list(organizationId) {
      const rows = await sql.rows(`${select} WHERE organization_id = $1 ORDER BY created_at, id`, [
        organizationId,
      ]);
      return rows.map(records.campaign);
    },
    async listPage(query) {
      const { where, values, limitParam } = pageFilter(
        [
          ["organization_id = $?", query.organizationId],
          ["status = $?", query.status],
        ],
        query.beforeSeq,
        query.limit,
      );
      const rows = await sql.rows(
        `SELECT seq, ${columns.campaigns} FROM ${t.campaigns} WHERE ${where}
         ORDER BY seq DESC LIMIT ${limitParam}`,
        values,
      );
      return rows.map(records.sequenced("campaigns", records.campaign));
    },
    async lock(organizationId, id) {
      // A row lock held to the end of the transaction: the next writer's read waits for it.
      await sql.rows(
        `SELECT 1 FROM ${t.campaigns} WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
        [id, organizationId],
      );
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
