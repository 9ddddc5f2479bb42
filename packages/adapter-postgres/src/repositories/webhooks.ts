import type { WebhookSubscriptionRepository } from "@tidings/core";
import { webhookRows } from "@tidings/core/sql";
import type { PgConnection } from "../sql.js";

/** Organization webhook subscriptions. */
export function webhookRepository({ access, sql }: PgConnection): WebhookSubscriptionRepository {
  return {
    ...webhookRows(access),
    async lockOrganization(organizationId) {
      // A transaction-level advisory lock keyed by schema and organization: held until the
      // caller's transaction ends, across every process on the database, and independent of
      // whether the organization row exists.
      await sql.rows("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [
        `tidings.webhooks:${sql.tables.schema}`,
        organizationId,
      ]);
    },
  };
}
