import type { NewProfile, ProfileRecord, ProfileRepository } from "@tidings/core";
import { toJson } from "@tidings/core/sql";
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
});

// JavaScript's toLowerCase is Unicode-aware; SQLite's lower() only folds ASCII.
const lowerEmail = (email: string | null): string | null =>
  email === null ? null : email.toLowerCase();

// The index that makes a phone number unique among an organization's active profiles.
const phoneIndex = "profiles.organization_id, profiles.phone_number";

// Every query below names `status = 'active'` literally: SQLite only uses a partial index
// when the query's WHERE clause implies the index's, which a bound parameter never does.
const select = `SELECT ${columns.profiles} FROM profiles`;

/** Profiles, with phone uniqueness among active profiles enforced by a partial UNIQUE index. */
export function profileRepository({ db, sql }: SqliteConnection): SyncOf<ProfileRepository> {
  const readRows = (text: string, params: object): ProfileRecord[] =>
    sql(text).all(params).map(records.profile);

  return {
    insert(profile) {
      try {
        const row = sql(
          `INSERT INTO profiles (id, organization_id, phone_number, email, email_lower,
             first_name, last_name, viber_marketing_consent, sms_marketing_consent, attributes,
             source, status, created_at, updated_at, deleted_at)
           VALUES (@id, @organizationId, @phoneNumber, @email, @emailLower, @firstName,
             @lastName, @viber, @sms, @attributes, @source, @status, @createdAt, @updatedAt,
             @deletedAt)
           RETURNING ${columns.profiles}`,
        ).get(profileParams(profile));
        return records.profile(row);
      } catch (error) {
        if (isUniqueViolation(error, phoneIndex)) return "phone_number_taken";
        throw error;
      }
    },

    get(organizationId, id) {
      const row = sql(`${select} WHERE id = ? AND organization_id = ? AND status = 'active'`).get(
        id,
        organizationId,
      );
      return row === undefined ? null : records.profile(row);
    },

    findByPhone(organizationId, phoneNumber) {
      const row = sql(
        `${select} WHERE organization_id = ? AND phone_number = ? AND status = 'active'`,
      ).get(organizationId, phoneNumber);
      return row === undefined ? null : records.profile(row);
    },

    findByEmail(organizationId, email, limit) {
      return readRows(
        `${select} WHERE organization_id = @organizationId AND email_lower = @emailLower
           AND status = 'active' ORDER BY seq LIMIT @limit`,
        { organizationId, emailLower: email.toLowerCase(), limit },
      );
    },

    list(query) {
      const filters = ["organization_id = @organizationId", "status = 'active'", "seq > @afterSeq"];
      if (query.phoneNumber !== undefined) filters.push("phone_number = @phoneNumber");
      if (query.email !== undefined) filters.push("email_lower = @emailLower");
      // At most four distinct texts, each prepared once by the statement cache.
      return readRows(`${select} WHERE ${filters.join(" AND ")} ORDER BY seq LIMIT @limit`, {
        organizationId: query.organizationId,
        afterSeq: query.afterSeq ?? 0,
        phoneNumber: query.phoneNumber ?? null,
        emailLower: query.email === undefined ? null : query.email.toLowerCase(),
        limit: query.limit,
      });
    },

    update(profile) {
      try {
        const result = sql(
          `UPDATE profiles SET phone_number = @phoneNumber, email = @email,
             email_lower = @emailLower, first_name = @firstName, last_name = @lastName,
             viber_marketing_consent = @viber, sms_marketing_consent = @sms,
             attributes = @attributes, updated_at = @updatedAt
           WHERE id = @id AND organization_id = @organizationId AND status = 'active'`,
        ).run(profileParams(profile));
        return result.changes === 1;
      } catch (error) {
        if (isUniqueViolation(error, phoneIndex)) return "phone_number_taken";
        throw error;
      }
    },

    softDelete(organizationId, id, at) {
      return atomically(db, () => {
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
