import { describe, expect, it } from "vitest";
import { isoAt } from "../support/clock.js";
import { aDelivery } from "../testing/contract/fixtures.js";
import { seedDelivery, seedMessage } from "../testing/contract/seed.js";
import { sendWorld } from "../testing/message-kit.js";
import { listFailingDestinations } from "./failing-destinations.js";

const HOUR = 60 * 60 * 1000;

describe("listFailingDestinations", () => {
  it("shows each failing destination's URL without its query, the subscription's current one, within the last 24 hours", async () => {
    const world = await sendWorld();
    const { storage, org, clock } = world;
    const now = clock.now();
    const failedAt = (ms: number) => ({
      status: "failed" as const,
      attempts: 3,
      lastAttemptAt: isoAt(now - ms),
      lastStatusCode: 500,
      lastError: "HTTP 500",
    });
    const hook = await world.subscribeAll();
    await seedDelivery(storage, org, failedAt(HOUR), hook);
    await storage.webhooks.update(org.organization.id, hook.id, {
      url: "https://moved.example.com/in?token=t",
      updatedAt: isoAt(now),
    });
    // Failed more than a day ago: no longer listed.
    const old = await world.subscribeAll();
    await seedDelivery(storage, org, failedAt(25 * HOUR), old);
    const { message, event } = await seedMessage(storage, org);
    await storage.deliveries.insert(
      aDelivery({
        organizationId: org.organization.id,
        eventId: event.id,
        messageId: message.id,
        destination: {
          kind: "message",
          url: "https://own.example.com/hooks?key=secret#x",
          apiKeyId: org.apiKey.id,
        },
        ...failedAt(2 * HOUR),
        status: "pending",
      }),
    );

    const listed = (await listFailingDestinations(world.deps, world.actor))._unsafeUnwrap();
    expect(listed).toEqual([
      {
        webhook_id: hook.id,
        url: "https://moved.example.com/in",
        retrying: 0,
        failed: 1,
        last_attempt_at: isoAt(now - HOUR),
        last_status_code: 500,
        last_error: "HTTP 500",
      },
      {
        webhook_id: null,
        url: "https://own.example.com/hooks",
        retrying: 1,
        failed: 0,
        last_attempt_at: isoAt(now - 2 * HOUR),
        last_status_code: 500,
        last_error: "HTTP 500",
      },
    ]);
    const longer = await listFailingDestinations(world.deps, world.actor, { hours: 48, limit: 1 });
    expect(longer._unsafeUnwrap().map((d) => d.last_attempt_at)).toEqual([isoAt(now - HOUR)]);
  });
});
