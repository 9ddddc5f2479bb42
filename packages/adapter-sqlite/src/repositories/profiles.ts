import type {
  Attributes,
  NewProfile,
  ProfileRecord,
  ProfileRepository,
  ProfileSource,
} from "@tidings/core";
import { atomically } from "../atomically.js";
import { fromFlag, fromJson, isUniqueViolation, toFlag, toJson } from "../columns.js";
import type { Sql, SqliteDatabase } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

export interface ProfileRow {
  seq: number;
  id: string;
  organization_id: string;
  phone_number: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  viber_marketing_consent: number;
  sms_marketing_consent: number;
  attributes: string;
  source: string;
  status: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export const profileColumns =
  "seq, id, organization_id, phone_number, email, first_name, last_name, " +
  "viber_marketing_consent, sms_marketing_consent, attributes, source, status, " +
  "created_at, updated_at, deleted_at";

/** A stored row as the port's record. */
export const toProfile = (row: ProfileRow): ProfileRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  seq: row.seq,
  phoneNumber: row.phone_number,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  viberMarketingConsent: fromFlag(row.viber_marketing_consent),
  smsMarketingConsent: fromFlag(row.sms_marketing_consent),
  attributes: fromJson<Attributes>(row.attributes),
  source: row.source as ProfileSource,
  status: row.status === "active" ? "active" : "inactive",
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
});

/** The named parameters of a profile's columns. */
const profileParams = (profile: NewProfile) => ({
  id: profile.id,
  organizationId: profile.organizationId,
  phoneNumber: profile.phoneNumber,
  email: profile.email,
  emailLower: lowerEmail(profile.email),
  firstName: profile.firstName,
  lastName: profile.lastName,
  viber: toFlag(profile.viberMarketingConsent),
  sms: toFlag(profile.smsMarketingConsent),
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
const select = `SELECT ${profileColumns} FROM profiles`;

/** Profiles, with phone uniqueness among active profiles enforced by a partial UNIQUE index. */
export function profileRepository(db: SqliteDatabase, sql: Sql): SyncOf<ProfileRepository> {
  const readRows = (text: string, params: object): ProfileRecord[] =>
    (sql(text).all(params) as ProfileRow[]).map(toProfile);

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
           RETURNING ${profileColumns}`,
        ).get(profileParams(profile)) as ProfileRow;
        return toProfile(row);
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
      return row === undefined ? null : toProfile(row as ProfileRow);
    },

    findByPhone(organizationId, phoneNumber) {
      const row = sql(
        `${select} WHERE organization_id = ? AND phone_number = ? AND status = 'active'`,
      ).get(organizationId, phoneNumber);
      return row === undefined ? null : toProfile(row as ProfileRow);
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
