import type { WebhookSubscriptionChanges, WebhookSubscriptionRepository } from "@tidings/core";
import { insertColumns, sqlTables, toJson } from "@tidings/core/sql";
import { select as columns, records } from "../columns.js";
import type { Sql } from "../sql.js";

/** Each field a write may change and its column, `updated_at` always among them. */
const changeableColumns: ReadonlyArray<[keyof WebhookSubscriptionChanges, string]> = [
  ["url", "url"],
  ["topics", "topics"],
  ["status", "status"],
  ["description", "description"],
  ["secretSealed", "secret_sealed"],
  ["updatedAt", "updated_at"],
];

/** Organization webhook subscriptions. */
export function webhookRepository(sql: Sql): WebhookSubscriptionRepository {
  const t = sql.tables;
  const select = `SELECT ${columns.webhookSubscriptions} FROM ${t.webhookSubscriptions}`;
  const one = async (text: string, values: unknown[]) => {
    const rows = await sql.rows(text, values);
    return rows[0] === undefined ? null : records.webhook(rows[0]);
  };
  return {
    async insert(w) {
      await sql.rows(
        `INSERT INTO ${t.webhookSubscriptions} (${insertColumns(sqlTables.webhookSubscriptions)})
         VALUES ($1, $2, $3, $4::text::jsonb, $5, $6, $7, $8, $9)`,
        [
          w.id,
          w.organizationId,
          w.url,
          toJson(w.topics),
          w.status,
          w.description,
          w.secretSealed,
          w.createdAt,
          w.updatedAt,
        ],
      );
    },
    get: (organizationId, id) =>
      one(`${select} WHERE id = $1 AND organization_id = $2`, [id, organizationId]),
    getById: (id) => one(`${select} WHERE id = $1`, [id]),
    async list(organizationId) {
      const rows = await sql.rows(`${select} WHERE organization_id = $1 ORDER BY created_at, id`, [
        organizationId,
      ]);
      return rows.map(records.webhook);
    },
    async update(organizationId, id, changes) {
      // Only the columns being changed are written, so a concurrent writer's other fields stay.
      const values: unknown[] = [id, organizationId];
      const set: string[] = [];
      for (const [field, column] of changeableColumns) {
        const value = changes[field];
        if (value === undefined) continue;
        values.push(field === "topics" ? toJson(value) : value);
        set.push(`${column} = $${values.length}${field === "topics" ? "::text::jsonb" : ""}`);
      }
      const rows = await sql.rows(
        `UPDATE ${t.webhookSubscriptions} SET ${set.join(", ")}
         WHERE id = $1 AND organization_id = $2 RETURNING id`,
        values,
      );
      return rows.length === 1;
    },
    async delete(organizationId, id) {
      const rows = await sql.rows(
        `DELETE FROM ${t.webhookSubscriptions} WHERE id = $1 AND organization_id = $2 RETURNING id`,
        [id, organizationId],
      );
      return rows.length === 1;
    },
    async lockOrganization(organizationId) {
      // A transaction-level advisory lock keyed by schema and organization: held until the
      // caller's transaction ends, across every process on the database, and independent of
      // whether the organization row exists.
      await sql.rows("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [
        `tidings.webhooks:${t.schema}`,
        organizationId,
      ]);
    },
  };
}
