import { describe, expect, it } from "vitest";
import type { DeliveryRecord, Storage } from "../../ports.js";
import { aDelivery, at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import {
  type SeededOrganization,
  seedDelivery,
  seedMessage,
  seedOrganization,
  seedWebhook,
  twoSeededOrganizations,
} from "./seed.js";

/** A delivery whose last attempt started at `at(seconds)` and answered `code`. */
const attempted = (
  seconds: number,
  status: DeliveryRecord["status"],
  code: number | null,
  error: string | null = null,
): Partial<DeliveryRecord> => ({
  status,
  attempts: 2,
  lastAttemptAt: at(seconds),
  lastStatusCode: code,
  lastError: error,
});

/** A delivery to a message's own URL. */
async function ownUrlDelivery(
  storage: Storage,
  org: SeededOrganization,
  url: string,
  overrides: Partial<DeliveryRecord>,
) {
  const { message, event } = await seedMessage(storage, org);
  const delivery = aDelivery({
    organizationId: org.organization.id,
    eventId: event.id,
    messageId: message.id,
    destination: { kind: "message", url, apiKeyId: org.apiKey.id },
    ...overrides,
  });
  await storage.deliveries.insert(delivery);
  return delivery;
}

/** The Overview's failing destinations. */
export function failingDestinationsContract(harness: () => StorageHarness): void {
  describe("deliveries.failingDestinations", () => {
    it("groups failing deliveries by subscription or own URL, latest failure first, with that attempt's outcome", async () => {
      const { storage, org, other } = await twoSeededOrganizations(harness);
      const organizationId = org.organization.id;
      const down = await seedWebhook(storage, org);
      const flaky = await seedWebhook(storage, org);
      const healthy = await seedWebhook(storage, org);
      // `down`: two failed for good, one being retried; the latest attempt answered 503.
      await seedDelivery(storage, org, attempted(10, "failed", 500), down);
      await seedDelivery(storage, org, attempted(30, "pending", 503, "HTTP 503"), down);
      await seedDelivery(storage, org, attempted(20, "failed", null, "timed out"), down);
      // Failed before `since`: not counted; its subscription is not listed for it.
      await seedDelivery(storage, org, attempted(1, "failed", 500), flaky);
      // `flaky`: being retried after a refused connection.
      await seedDelivery(storage, org, attempted(40, "pending", null, "ECONNREFUSED"), flaky);
      // Nothing failing: succeeded, cancelled, pending never tried, pending again after a 2xx.
      await seedDelivery(storage, org, attempted(50, "delivered", 200), healthy);
      await seedDelivery(storage, org, attempted(51, "cancelled", 500), healthy);
      await seedDelivery(storage, org, {}, healthy);
      await seedDelivery(storage, org, attempted(52, "pending", 204), healthy);
      // A message's own URL, twice to one origin.
      await ownUrlDelivery(
        storage,
        org,
        "https://own.example.com/a?token=t1",
        attempted(25, "failed", 404),
      );
      await ownUrlDelivery(
        storage,
        org,
        "https://own.example.com/b?token=t2",
        attempted(26, "failed", 410),
      );
      // Another organization's failures are not this one's.
      await seedDelivery(storage, other, attempted(60, "failed", 500));

      const found = await storage.deliveries.failingDestinations({
        organizationId,
        since: at(5),
        limit: 10,
        scan: 1000,
      });
      expect(found).toEqual([
        {
          webhookId: flaky.id,
          destinationKey: `${organizationId} https://${flaky.id}.example.com`,
          url: null,
          retrying: 1,
          failed: 0,
          lastAttemptAt: at(40),
          lastStatusCode: null,
          lastError: "ECONNREFUSED",
        },
        {
          webhookId: down.id,
          destinationKey: `${organizationId} https://${down.id}.example.com`,
          url: null,
          retrying: 1,
          failed: 2,
          lastAttemptAt: at(30),
          lastStatusCode: 503,
          lastError: "HTTP 503",
        },
        {
          webhookId: null,
          destinationKey: `${organizationId} https://own.example.com`,
          url: "https://own.example.com/b?token=t2",
          retrying: 0,
          failed: 2,
          lastAttemptAt: at(26),
          lastStatusCode: 410,
          lastError: null,
        },
      ]);
      const firstTwo = await storage.deliveries.failingDestinations({
        organizationId,
        since: at(5),
        limit: 2,
        scan: 1000,
      });
      expect(firstTwo.map((d) => d.webhookId)).toEqual([flaky.id, down.id]);
    });

    it("looks only at the newest `scan` failed and pending deliveries", async () => {
      const { storage } = harness();
      const org = await seedOrganization(storage);
      const hook = await seedWebhook(storage, org);
      for (let i = 0; i < 3; i++) {
        await seedDelivery(storage, org, attempted(10 + i, "failed", 500), hook);
        await seedDelivery(storage, org, attempted(20 + i, "pending", 500), hook);
      }
      const [found] = await storage.deliveries.failingDestinations({
        organizationId: org.organization.id,
        since: at(0),
        limit: 10,
        scan: 2,
      });
      expect(found).toMatchObject({ webhookId: hook.id, failed: 2, retrying: 2 });
      expect(found?.lastAttemptAt).toBe(at(22));
    });
  });
}
