import type { WebhookSubscriptionChanges, WebhookSubscriptionRepository } from "@tidings/core";
import { insertColumns, sqlTables, toJson } from "@tidings/core/sql";
import { records, select } from "../columns.js";
import type { Sql } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** Each field a write may change and its column, `updated_at` always among them. */
const changeableColumns: ReadonlyArray<[keyof WebhookSubscriptionChanges, string]> = [
  ["url", "url"],
  ["topics", "topics"],
  ["status", "status"],
  ["description", "description"],
  ["secretSealed", "secret_sealed"],
  ["updatedAt", "updated_at"],
];

/** Webhook subscriptions. */
export function webhookRepository(sql: Sql): SyncOf<WebhookSubscriptionRepository> {
  const one = (row: unknown) => (row === undefined ? null : records.webhook(row));
  return {
    insert(subscription) {
      sql(
        `INSERT INTO webhook_subscriptions (${insertColumns(sqlTables.webhookSubscriptions)})
         VALUES (@id, @organizationId, @url, @topics, @status, @description, @secretSealed,
           @createdAt, @updatedAt)`,
      ).run({ ...subscription, topics: toJson(subscription.topics) });
    },
    get(organizationId, id) {
      return one(
        sql(
          `SELECT ${select.webhookSubscriptions} FROM webhook_subscriptions
           WHERE id = ? AND organization_id = ?`,
        ).get(id, organizationId),
      );
    },
    getById(id) {
      return one(
        sql(`SELECT ${select.webhookSubscriptions} FROM webhook_subscriptions WHERE id = ?`).get(
          id,
        ),
      );
    },
    list(organizationId) {
      const rows = sql(
        `SELECT ${select.webhookSubscriptions} FROM webhook_subscriptions WHERE organization_id = ?
         ORDER BY created_at, id`,
      ).all(organizationId);
      return rows.map(records.webhook);
    },
    update(organizationId, id, changes) {
      // Only the columns being changed are written (at most 32 statement texts, each cached).
      const values: Record<string, unknown> = { id, organizationId };
      const set: string[] = [];
      for (const [field, column] of changeableColumns) {
        const value = changes[field];
        if (value === undefined) continue;
        set.push(`${column} = @${field}`);
        values[field] = field === "topics" ? toJson(value) : value;
      }
      const result = sql(
        `UPDATE webhook_subscriptions SET ${set.join(", ")}
         WHERE id = @id AND organization_id = @organizationId`,
      ).run(values);
      return result.changes === 1;
    },
    delete(organizationId, id) {
      const result = sql(
        "DELETE FROM webhook_subscriptions WHERE id = ? AND organization_id = ?",
      ).run(id, organizationId);
      return result.changes === 1;
    },
    lockOrganization() {
      // Nothing to do: every transaction on this connection holds SQLite's single write lock
      // (BEGIN IMMEDIATE) and the storage's mutex, so rule checks are already serialized.
    },
  };
}
