import type { NewProfile, ProfileRecord, ProfileRepository } from "@tidings/core";
import { profileReads, toJson } from "@tidings/core/sql";
import { batchedByTurn } from "../batched-by-turn.js";
import { select as columns, isRefusedStatement, isUniqueViolation, records } from "../columns.js";
import type { PgConnection } from "../sql.js";

// JavaScript's toLowerCase is Unicode-aware and the same on every server, whatever its locale.
const lowerEmail = (email: string | null): string | null =>
  email === null ? null : email.toLowerCase();

/** `$1` to `$10` of the insert and of the update: the key, then what an update may change. */
const keyAndFields = (profile: NewProfile): unknown[] => [
  profile.id,
  profile.organizationId,
  profile.phoneNumber,
  profile.email,
  lowerEmail(profile.email),
  profile.firstName,
  profile.lastName,
  profile.viberMarketingConsent,
  profile.smsMarketingConsent,
  toJson(profile.attributes),
];

/** What the insert of one profile sends, its values built when it was asked for. */
interface Queued {
  id: string;
  organizationId: string;
  phoneNumber: string;
  values: unknown[];
}

type InsertAnswer = ProfileRecord | "phone_number_taken";

/** The insert's values, `$1` to `$16`. */
const insertValues = (profile: NewProfile): unknown[] => [
  ...keyAndFields(profile),
  profile.source,
  profile.status,
  profile.createdAt,
  profile.updatedAt,
  profile.deletedAt,
  profile.timeZone,
];

const INSERT_COLUMNS = `id, organization_id, phone_number, email, email_lower, first_name,
  last_name, viber_marketing_consent, sms_marketing_consent, attributes, source, status,
  created_at, updated_at, deleted_at, time_zone`;

/**
 * The batched insert's rows, `count` of them: each row's 16 values as parameters (`$8` and
 * `$9` of a row, the consents, are booleans, every other value text) and its place in the
 * batch. One text per batch size, so each is a named statement whose plan is made once; the
 * same rows as `unnest` arrays were planned on every call (PostgreSQL keeps a custom plan when
 * its generic one guesses more rows than it is given), some 130 µs of the database's time a
 * batch.
 */
const insertRows = (count: number): string =>
  Array.from(
    { length: count },
    (_, row) =>
      `(${Array.from(
        { length: 16 },
        (_, i) => `$${row * 16 + i + 1}::${i === 7 || i === 8 ? "boolean" : "text"}`,
      ).join(", ")}, ${row + 1})`,
  ).join(",\n");

// The partial unique index that makes a number unique among an organization's active profiles.
const PHONE_INDEX = "profiles_active_phone";

// How long a batched insert waits for a number another transaction holds (an uncommitted
// insert of it) before it gives up: long enough for a commit in flight, short enough that the
// batch's other profiles hardly wait for a transaction that keeps the number longer.
const HELD_NUMBER_WAIT = "50ms";

/** Profiles, with phone uniqueness among active profiles enforced by a partial unique index. */
export function profileRepository({ sql, access }: PgConnection): ProfileRepository {
  const t = sql.tables;
  const many = async (text: string, values: unknown[]) =>
    (await sql.rows(text, values)).map(records.profile);

  // ON CONFLICT instead of catching 23505: a refusal must not abort the caller's transaction.
  // A concurrent insert of the same number waits for the other to commit, then yields.
  const insertOne = async ({ values }: Queued) => {
    const rows = await many(
      `INSERT INTO ${t.profiles} (${INSERT_COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text::jsonb, $11, $12, $13, $14, $15,
         $16)
       ON CONFLICT (organization_id, phone_number) WHERE status = 'active' DO NOTHING
       RETURNING ${columns.profiles}`,
      values,
    );
    return rows[0] ?? "phone_number_taken";
  };

  // The same insert for many profiles of one organization in one statement. Rows go in by
  // number, so two batches that share numbers wait for each other in the same order and never
  // deadlock each other; of two profiles with one number, the one asked for first wins, as it
  // would one statement after the other. A number another transaction holds would keep the
  // whole batch waiting until that transaction ends; the statement's own lock_timeout (set
  // before its first row goes in, and only for its own transaction) makes it give up instead,
  // having written nothing, and `batchedByTurn` runs each profile again alone: only the held
  // number's profile waits for its holder, and hears what a single insert would have.
  const insertManyTexts = new Map<number, string>();
  const insertManyText = (count: number): string => {
    let text = insertManyTexts.get(count);
    if (text === undefined) {
      text = `INSERT INTO ${t.profiles} (${INSERT_COLUMNS})
       SELECT id, organization_id, phone_number, email, email_lower, first_name, last_name,
         viber_marketing_consent, sms_marketing_consent, attributes::jsonb, source, status,
         created_at, updated_at, deleted_at, time_zone
       FROM (VALUES ${insertRows(count)}) AS v (${INSERT_COLUMNS}, n)
       WHERE (SELECT set_config('lock_timeout', '${HELD_NUMBER_WAIT}', true)) IS NOT NULL
       ORDER BY phone_number COLLATE "C", n
       ON CONFLICT (organization_id, phone_number) WHERE status = 'active' DO NOTHING
       RETURNING ${columns.profiles}`;
      insertManyTexts.set(count, text);
    }
    return text;
  };
  const insertMany = async (queued: Queued[]) => {
    const rows = await many(
      insertManyText(queued.length),
      queued.flatMap(({ values }) => values),
    );
    const inserted = new Map(rows.map((row) => [row.id, row]));
    return queued.map(({ id }) => inserted.get(id) ?? "phone_number_taken");
  };

  // Outside a transaction each insert commits alone, so the inserts of concurrent requests can
  // share one statement and one commit, each organization's apart: a number another
  // transaction holds keeps waiting only that organization's batch, and only briefly. Inside a
  // transaction the caller's transaction is the unit.
  const batched = batchedByTurn({
    one: insertOne,
    many: insertMany,
    alone: isRefusedStatement,
    groupOf: (queued: Queued) => queued.organizationId,
    // Run again alone, the first asked for a number still goes in first.
    contendedOf: (queued: Queued) => queued.phoneNumber,
  });
  const insert = async (profile: NewProfile): Promise<InsertAnswer> => {
    const queued = {
      id: profile.id,
      organizationId: profile.organizationId,
      phoneNumber: profile.phoneNumber,
      values: insertValues(profile),
    };
    if (sql.inTransaction) return insertOne(queued);
    sql.check();
    return batched(queued);
  };

  return {
    insert,

    ...profileReads(access),

    async update(profile) {
      try {
        const rows = await sql.tentative(
          `UPDATE ${t.profiles} SET phone_number = $3, email = $4, email_lower = $5,
             first_name = $6, last_name = $7, viber_marketing_consent = $8,
             sms_marketing_consent = $9, attributes = $10::text::jsonb, updated_at = $11,
             time_zone = $12
           WHERE id = $1 AND organization_id = $2 AND status = 'active'
           RETURNING id`,
          [...keyAndFields(profile), profile.updatedAt, profile.timeZone],
        );
        return rows.length === 1;
      } catch (error) {
        if (isUniqueViolation(error, PHONE_INDEX)) return "phone_number_taken";
        throw error;
      }
    },

    async softDelete(organizationId, id, at) {
      // One statement, so the status change and the membership removal commit together.
      const rows = await sql.rows(
        `WITH gone AS (
           UPDATE ${t.profiles} SET status = 'inactive', deleted_at = $3, updated_at = $3
           WHERE id = $1 AND organization_id = $2 AND status = 'active'
           RETURNING id
         ), left_lists AS (
           DELETE FROM ${t.listMemberships} WHERE profile_id IN (SELECT id FROM gone)
         )
         SELECT id FROM gone`,
        [id, organizationId, at],
      );
      return rows.length === 1;
    },
  };
}
