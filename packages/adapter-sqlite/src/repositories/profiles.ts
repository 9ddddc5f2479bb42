import type { NewProfile, ProfileRepository } from "@tidings/core";
import { profileReads, toJson } from "@tidings/core/sql";
import { atomically } from "../atomically.js";
import { select as columns, isUniqueViolation, records, sqliteCodec } from "../columns.js";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** The named parameters of a profile's columns. */
const profileParams = (profile: NewProfile) => ({
  id: profile.id,
  organizationId: profile.organizationId,
  phoneNumber: profile.phoneNumber,
  email: profile.email,
  emailLower: lowerEmail(profile.email),
  firstName: profile.firstName,
  lastName: profile.lastName,
  viber: sqliteCodec.writeFlag(profile.viberMarketingConsent),
  sms: sqliteCodec.writeFlag(profile.smsMarketingConsent),
  attributes: toJson(profile.attributes),
  source: profile.source,
  status: profile.status,
  createdAt: profile.createdAt,
  updatedAt: profile.updatedAt,
  deletedAt: profile.deletedAt,
  timeZone: profile.timeZone,
});

// JavaScript's toLowerCase is Unicode-aware; SQLite's lower() only folds ASCII.
const lowerEmail = (email: string | null): string | null =>
  email === null ? null : email.toLowerCase();

// The index that makes a phone number unique among an organization's active profiles.
const phoneIndex = "profiles.organization_id, profiles.phone_number";

/**
 * Profiles, with phone uniqueness among active profiles enforced by a partial UNIQUE index.
 * The reads are the shared ones; every write names `status = 'active'` literally, as they do
 * (SQLite only uses a partial index when the query's WHERE clause implies the index's).
 */
export function profileRepository({
  db,
  sql,
  access,
}: SqliteConnection): SyncOf<ProfileRepository> {
  return {
    insert(profile) {
      try {
        const row = sql(
          `INSERT INTO profiles (id, organization_id, phone_number, email, email_lower,
             first_name, last_name, viber_marketing_consent, sms_marketing_consent, attributes,
             source, status, created_at, updated_at, deleted_at, time_zone)
           VALUES (@id, @organizationId, @phoneNumber, @email, @emailLower, @firstName,
             @lastName, @viber, @sms, @attributes, @source, @status, @createdAt, @updatedAt,
             @deletedAt, @timeZone)
           RETURNING ${columns.profiles}`,
        ).get(profileParams(profile));
        return records.profile(row);
      } catch (error) {
        if (isUniqueViolation(error, phoneIndex)) return "phone_number_taken";
        throw error;
      }
    },

    ...profileReads(access),

    update(profile) {
      try {
        const result = sql(
          `UPDATE profiles SET phone_number = @phoneNumber, email = @email,
             email_lower = @emailLower, first_name = @firstName, last_name = @lastName,
             viber_marketing_consent = @viber, sms_marketing_consent = @sms,
             attributes = @attributes, updated_at = @updatedAt, time_zone = @timeZone
           WHERE id = @id AND organization_id = @organizationId AND status = 'active'`,
        ).run(profileParams(profile));
        return result.changes === 1;
      } catch (error) {
        if (isUniqueViolation(error, phoneIndex)) return "phone_number_taken";
        throw error;
      }
    },

    softDelete(organizationId, id, at) {
      return atomically(db, sql, () => {
        const result = sql(
          `UPDATE profiles SET status = 'inactive', deleted_at = @at, updated_at = @at
           WHERE id = @id AND organization_id = @organizationId AND status = 'active'`,
        ).run({ organizationId, id, at });
        if (result.changes !== 1) return false;
        sql("DELETE FROM list_memberships WHERE profile_id = ?").run(id);
        return true;
      });
    },
  };
}
