import type { PrivacyRepository } from "@tidings/core";
import { privacyRows } from "@tidings/core/sql";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** What erasure and export read and write: the shared statements, and the profile's erasure. */
export function privacyRepository({ access, sql }: SqliteConnection): SyncOf<PrivacyRepository> {
  return {
    ...privacyRows(access),
    eraseProfile(organizationId, id, at) {
      const result = sql(
        `UPDATE profiles SET phone_number = '', email = NULL, email_lower = NULL,
           first_name = NULL, last_name = NULL, attributes = '{}', status = 'inactive',
           deleted_at = coalesce(deleted_at, @at), updated_at = @at
         WHERE id = @id AND organization_id = @organizationId`,
      ).run({ organizationId, id, at });
      return result.changes === 1;
    },
  };
}
