import { isoAt } from "@tidings/core";
import { seedDelivery, seedOrganization } from "@tidings/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { postgresStorage } from "./postgres-storage.js";
import { openTestDatabase, type TestDatabase } from "./testing/test-database.js";
import { webhookBacklog } from "./webhook-backlog.js";

const NOW = Date.UTC(2026, 0, 15, 9);
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
    const read = () => webhookBacklog(db.client, isoAt(NOW), { schema });
    expect(await read()).toEqual({ due: 0, oldestDueAt: null });

    const org = await seedOrganization(storage);
    const at = (offsetMs: number) => isoAt(NOW + offsetMs);
    await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(-60_000) });
    await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(-10_000) });
    await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(0) });
    // Not counted: due later, or no longer pending.
    await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(60_000) });
    await seedDelivery(storage, org, { status: "delivered", nextAttemptAt: at(-120_000) });
    await seedDelivery(storage, org, { status: "failed", nextAttemptAt: at(-120_000) });

    expect(await read()).toEqual({ due: 3, oldestDueAt: at(-60_000) });
  } finally {
    await drop();
  }
});
