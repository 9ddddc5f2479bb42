import type { ConsentChangeRecord, ConsentChannel, ConsentHistoryRepository } from "@tidings/core";
import type { Sql } from "../sql.js";

export interface ConsentRow {
  id: string;
  organization_id: string;
  profile_id: string;
  channel: string;
  old_value: boolean | null;
  new_value: boolean;
  api_key_id: string | null;
  changed_at: string;
}

export const consentColumns =
  "id, organization_id, profile_id, channel, old_value, new_value, api_key_id, changed_at";

export const toConsentChange = (row: ConsentRow): ConsentChangeRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  profileId: row.profile_id,
  channel: row.channel as ConsentChannel,
  oldValue: row.old_value,
  newValue: row.new_value,
  apiKeyId: row.api_key_id,
  changedAt: row.changed_at,
});

/** The consent history: an append-only log of every consent flag change. */
export function consentRepository(sql: Sql): ConsentHistoryRepository {
  const t = sql.tables;
  return {
    async insert(change) {
      await sql.rows(
        `INSERT INTO ${t.consentChanges} (${consentColumns})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          change.id,
          change.organizationId,
          change.profileId,
          change.channel,
          change.oldValue,
          change.newValue,
          change.apiKeyId,
          change.changedAt,
        ],
      );
    },
    async listForProfile(organizationId, profileId) {
      const rows = await sql.rows<ConsentRow>(
        `SELECT ${consentColumns} FROM ${t.consentChanges}
         WHERE profile_id = $1 AND organization_id = $2 ORDER BY changed_at, id`,
        [profileId, organizationId],
      );
      return rows.map(toConsentChange);
    },
  };
}
