import type { PrivacyRepository } from "@tidings/core";
import { privacyRows } from "@tidings/core/sql";
import type { PgConnection } from "../sql.js";

/** What erasure and export read and write: the shared statements, and the profile's erasure. */
export function privacyRepository({ access, sql }: PgConnection): PrivacyRepository {
  const t = sql.tables;
  return {
    ...privacyRows(access),
    async eraseProfile(organizationId, id, at) {
      const rows = await sql.rows(
        `UPDATE ${t.profiles} SET phone_number = '', email = NULL, email_lower = NULL,
           first_name = NULL, last_name = NULL, attributes = '{}'::jsonb, status = 'inactive',
           deleted_at = coalesce(deleted_at, $3), updated_at = $3
         WHERE id = $1 AND organization_id = $2
         RETURNING id`,
        [id, organizationId, at],
      );
      return rows.length === 1;
    },
  };
}
