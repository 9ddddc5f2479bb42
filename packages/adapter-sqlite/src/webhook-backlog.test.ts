import { isoAt } from "@tidings/core";
import { seedDelivery, seedOrganization } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { migrate } from "./migrations.js";
import { sqliteStorage } from "./sqlite-storage.js";
import { webhookBacklog } from "./webhook-backlog.js";

const NOW = Date.UTC(2026, 0, 15, 9);

it("counts the pending deliveries due now and finds the most overdue one's due time", async () => {
  const db = new Database(":memory:");
  migrate(db);
  const storage = sqliteStorage(db, { migrate: false });
  expect(webhookBacklog(db, isoAt(NOW))).toEqual({ due: 0, oldestDueAt: null });

  const org = await seedOrganization(storage);
  const at = (offsetMs: number) => isoAt(NOW + offsetMs);
  await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(-60_000) });
  await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(-10_000) });
  await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(0) });
  // Not counted: due later, or no longer pending.
  await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(60_000) });
  await seedDelivery(storage, org, { status: "delivered", nextAttemptAt: at(-120_000) });
  await seedDelivery(storage, org, { status: "failed", nextAttemptAt: at(-120_000) });

  expect(webhookBacklog(db, isoAt(NOW))).toEqual({ due: 3, oldestDueAt: at(-60_000) });
  await storage.close();
  db.close();
});
