import type { ConsentChangeRecord, ConsentChannel, ConsentHistoryRepository } from "@tidings/core";
import { fromFlag, fromFlagOrNull, toFlag, toFlagOrNull } from "../columns.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

export interface ConsentChangeRow {
  id: string;
  organization_id: string;
  profile_id: string;
  channel: string;
  old_value: number | null;
  new_value: number;
  api_key_id: string | null;
  changed_at: string;
}

export const consentColumns =
  "id, organization_id, profile_id, channel, old_value, new_value, api_key_id, changed_at";

export const toConsentChange = (row: ConsentChangeRow): ConsentChangeRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  profileId: row.profile_id,
  channel: row.channel as ConsentChannel,
  oldValue: fromFlagOrNull(row.old_value),
  newValue: fromFlag(row.new_value),
  apiKeyId: row.api_key_id,
  changedAt: row.changed_at,
});

/** The append-only history of consent flag changes. */
export function consentRepository(sql: Sql): SyncOf<ConsentHistoryRepository> {
  return {
    insert(change) {
      sql(
        `INSERT INTO consent_changes (${consentColumns})
         VALUES (@id, @organizationId, @profileId, @channel, @oldValue, @newValue, @apiKeyId,
           @changedAt)`,
      ).run({
        ...change,
        oldValue: toFlagOrNull(change.oldValue),
        newValue: toFlag(change.newValue),
      });
    },
    listForProfile(organizationId, profileId) {
      const rows = sql(
        `SELECT ${consentColumns} FROM consent_changes
         WHERE profile_id = ? AND organization_id = ? ORDER BY changed_at, id`,
      ).all(profileId, organizationId) as ConsentChangeRow[];
      return rows.map(toConsentChange);
    },
  };
}
