import { expect } from "vitest";
import type { Storage, WebhookBacklog } from "../../ports.js";
import { isoAt } from "../../support/clock.js";
import { seedDelivery, seedOrganization } from "./seed.js";

const NOW = Date.UTC(2026, 0, 15, 9);

/**
 * Checks an adapter's backlog read (for the metrics scrape) on `storage`, freshly migrated and
 * empty: it counts the pending deliveries due at `now` and finds the most overdue one's due
 * time, passing over those due later and those no longer pending.
 */
export async function checkWebhookBacklog(
  storage: Storage,
  read: (now: string) => WebhookBacklog | Promise<WebhookBacklog>,
): Promise<void> {
  expect(await read(isoAt(NOW))).toEqual({ due: 0, oldestDueAt: null });
  const org = await seedOrganization(storage);
  const at = (offsetMs: number) => isoAt(NOW + offsetMs);
  await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(-60_000) });
  await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(-10_000) });
  await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(0) });
  // Not counted: due later, or no longer pending.
  await seedDelivery(storage, org, { status: "pending", nextAttemptAt: at(60_000) });
  await seedDelivery(storage, org, { status: "delivered", nextAttemptAt: at(-120_000) });
  await seedDelivery(storage, org, { status: "failed", nextAttemptAt: at(-120_000) });
  expect(await read(isoAt(NOW))).toEqual({ due: 3, oldestDueAt: at(-60_000) });
}
