import type { LinkRepository } from "@tidings/core";
import { linkReads } from "@tidings/core/sql";
import { atomically } from "../atomically.js";
import { records, select } from "../columns.js";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** Tracked links. */
export function linkRepository({ db, access, sql }: SqliteConnection): SyncOf<LinkRepository> {
  const links = access.table("links");
  return {
    ...linkReads(access),
    insertMany(newLinks) {
      // Statements are synchronous and the send holds the writer: a prepared insert per link
      // costs microseconds, no round trip. Several go in a savepoint, all or none.
      const insertAll = () => {
        for (const link of newLinks) {
          links.insert({ ...link, clicks: 0, firstClickedAt: null, lastClickedAt: null });
        }
      };
      if (newLinks.length > 1) atomically(db, sql, insertAll);
      else insertAll();
    },
    listForMessages(organizationId, messageIds) {
      if (messageIds.length === 0) return [];
      const rows = sql(
        `SELECT ${select.links} FROM links
         WHERE message_id IN (SELECT value FROM json_each(?)) AND organization_id = ?`,
      ).all(JSON.stringify(messageIds), organizationId);
      return rows.map(records.link);
    },
    recordClick(code, at) {
      const row = sql(
        `UPDATE links SET clicks = clicks + 1,
           first_clicked_at = coalesce(first_clicked_at, ?), last_clicked_at = ?
         WHERE code = ? RETURNING ${select.links}`,
      ).get(at, at, code);
      return row === undefined ? null : records.link(row);
    },
  };
}
