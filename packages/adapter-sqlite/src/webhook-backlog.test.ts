import { checkWebhookBacklog } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { it } from "vitest";
import { migrate } from "./migrations.js";
import { sqliteStorage } from "./sqlite-storage.js";
import { webhookBacklog } from "./webhook-backlog.js";

it("counts the pending deliveries due now and finds the most overdue one's due time", async () => {
  const db = new Database(":memory:");
  migrate(db);
  const storage = sqliteStorage(db, { migrate: false });
  try {
    await checkWebhookBacklog(storage, (now) => webhookBacklog(db, now));
  } finally {
    await storage.close();
    db.close();
  }
});
