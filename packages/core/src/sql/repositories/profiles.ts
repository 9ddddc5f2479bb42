import type { Channel, ProfileRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";
import { CHANNELS } from "../records.js";

/**
 * Profiles' reads. Writes stay with each database, which refuses a phone number taken by an
 * active profile its own way. Every condition names `status = 'active'` literally: SQLite
 * only uses a partial index when the query's WHERE clause implies the index's, which a bound
 * parameter never does.
 */
export function profileReads<A extends boolean>(
  access: SqlAccess<A>,
): Styled<
  Pick<ProfileRepository, "get" | "findByPhone" | "findRecipient" | "findByEmail" | "list">,
  A
> {
  const profiles = access.table("profiles");
  // Both databases have string_agg (SQLite since 3.44). Every channel is named, so both seek
  // the unique (organization, channel, hash) key once per channel, exactly, whatever their
  // statistics say; a number has at most one suppression per channel.
  const channels = CHANNELS.map((channel) => `'${channel}'`).join(", ");
  const suppressedOn = `SELECT string_agg(channel, ',') FROM ${access.tableName("suppressions")}
    WHERE organization_id = ? AND channel IN (${channels}) AND phone_hash = ?`;
  return {
    get: (organizationId, id) =>
      profiles.one("id = ? AND organization_id = ? AND status = 'active'", [id, organizationId]),
    findByPhone: (organizationId, phoneNumber) =>
      profiles.one("organization_id = ? AND phone_number = ? AND status = 'active'", [
        organizationId,
        phoneNumber,
      ]),
    // The send's one read of its recipient: the suppressions ride on the profile's lookup.
    findRecipient: (organizationId, phoneNumber, phoneHash) =>
      access.map(
        profiles.oneBeside(
          suppressedOn,
          "organization_id = ? AND phone_number = ? AND status = 'active'",
          [organizationId, phoneHash, organizationId, phoneNumber],
        ),
        ({ record, beside }) => ({
          profile: record,
          suppressed:
            typeof beside === "string" && beside !== "" ? (beside.split(",") as Channel[]) : [],
        }),
      ),
    // JavaScript's toLowerCase is Unicode-aware and the same everywhere; SQLite's lower() only
    // folds ASCII, so the lowered email is computed here and stored beside the email.
    findByEmail: (organizationId, email, limit) =>
      profiles.many(
        "organization_id = ? AND email_lower = ? AND status = 'active' ORDER BY seq LIMIT ?",
        [organizationId, email.toLowerCase(), limit],
      ),
    list(query) {
      const filters = ["organization_id = ?", "status = 'active'", "seq > ?"];
      const values: unknown[] = [query.organizationId, query.afterSeq ?? 0];
      if (query.phoneNumber !== undefined) {
        filters.push("phone_number = ?");
        values.push(query.phoneNumber);
      }
      if (query.email !== undefined) {
        filters.push("email_lower = ?");
        values.push(query.email.toLowerCase());
      }
      return profiles.many(`${filters.join(" AND ")} ORDER BY seq LIMIT ?`, [
        ...values,
        query.limit,
      ]);
    },
  };
}
