import type { SuppressionRepository } from "@tidings/core";
import { suppressionRepository as sharedSuppressions } from "@tidings/core/sql";
import { records, select } from "../columns.js";
import type { PgConnection } from "../sql.js";

/**
 * Suppressions: the shared statements, but the numbers of a page of profiles are looked up
 * with one array parameter rather than one parameter each. With a hundred parameters every
 * execution was planned again (a custom plan per call), and the plan walked the whole table
 * testing each row against the hundred hashes. Here each hash is one probe of the
 * organization's index by hash (`OFFSET 0` keeps the probes apart from the planner's choice),
 * a few index pages per number whatever the table holds. That statement is planned on every
 * call (an `unnest` runs unnamed; named, PostgreSQL still kept a custom plan for each call,
 * as its generic plan guesses more rows), some 100 µs of the database's time: a page pays it
 * once, but a single profile's read or write (one hash) takes the shared statement by key,
 * planned once.
 */
export function suppressionRepository(connection: PgConnection): SuppressionRepository {
  const { sql } = connection;
  const shared = sharedSuppressions(connection);
  return {
    ...shared,
    forNumbers: async (organizationId, phoneHashes) =>
      phoneHashes.length === 0
        ? []
        : phoneHashes.length === 1
          ? shared.forNumber(organizationId, phoneHashes[0] as string)
          : (
              await sql.rows(
                `SELECT found.* FROM unnest($1::text[]) AS wanted (hash)
               CROSS JOIN LATERAL (SELECT ${select.suppressions} FROM ${sql.tables.suppressions}
                 WHERE organization_id = $2 AND phone_hash = wanted.hash OFFSET 0) found`,
                [phoneHashes, organizationId],
              )
            ).map(records.suppression),
  };
}
