import { checkWebhookBacklog } from "@tidings/core/testing";
import { afterAll, beforeAll, it } from "vitest";
import { postgresStorage } from "./postgres-storage.js";
import { openTestDatabase, type TestDatabase } from "./testing/test-database.js";
import { webhookBacklog } from "./webhook-backlog.js";

let db: TestDatabase;

beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db.close();
});

it("counts the pending deliveries due now and finds the most overdue one's due time", async () => {
  const { schema, drop } = await db.freshSchema();
  try {
    const storage = postgresStorage(db.client, { schema });
    await checkWebhookBacklog(storage, (now) => webhookBacklog(db.client, now, { schema }));
  } finally {
    await drop();
  }
});
