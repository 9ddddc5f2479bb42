import type { WebhookSubscriptionRepository } from "@tidings/core";
import { webhookRows } from "@tidings/core/sql";
import type { SqliteConnection } from "../sqlite-database.js";
import type { SyncOf } from "../sync-repository.js";

/** Webhook subscriptions. */
export function webhookRepository({
  access,
}: SqliteConnection): SyncOf<WebhookSubscriptionRepository> {
  return {
    ...webhookRows(access),
    lockOrganization() {
      // Nothing to do: every transaction on this connection holds SQLite's single write lock
      // (BEGIN IMMEDIATE) and the storage's mutex, so rule checks are already serialized.
    },
  };
}
