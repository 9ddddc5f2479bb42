import type { LinkRepository } from "@tidings/core";
import { insertColumns, jsonRow, linkReads, sqlTables, toJson } from "@tidings/core/sql";
import { postgresCodec as codec, records, select } from "../columns.js";
import type { PgConnection } from "../sql.js";

const { links } = sqlTables;

/** Tracked links. */
export function linkRepository({ access, sql }: PgConnection): LinkRepository {
  const t = sql.tables;
  // One statement for all of a send's links, deferred: it travels with the send's next
  // statement or its COMMIT, so tracking costs a send no round trip.
  const insertAll = `INSERT INTO ${t.links} (${insertColumns(links)})
    SELECT ${insertColumns(links)} FROM jsonb_populate_recordset(NULL::${t.links}, $1::text::jsonb)`;
  return {
    ...linkReads(access),
    async insertMany(newLinks) {
      if (newLinks.length === 0) return;
      const rows = newLinks.map((link) =>
        jsonRow(links, { ...link, clicks: 0, firstClickedAt: null, lastClickedAt: null }, codec),
      );
      await sql.run(insertAll, [toJson(rows)]);
    },
    async listForMessages(organizationId, messageIds) {
      if (messageIds.length === 0) return [];
      const rows = await sql.rows(
        `SELECT ${select.links} FROM ${t.links}
         WHERE message_id = ANY($1::text[]) AND organization_id = $2`,
        [messageIds, organizationId],
      );
      return rows.map(records.link);
    },
    async recordClick(code, at) {
      const rows = await sql.rows(
        `UPDATE ${t.links} SET clicks = clicks + 1,
           first_clicked_at = COALESCE(first_clicked_at, $2), last_clicked_at = $2
         WHERE code = $1 RETURNING ${select.links}`,
        [code, at],
      );
      return rows[0] === undefined ? null : records.link(rows[0]);
    },
  };
}
