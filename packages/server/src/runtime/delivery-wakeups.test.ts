import { memoryStorage } from "@tidings/core/memory";
import { aDelivery, anEvent, seedMessage, seedOrganization } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";
import { withDeliveryWakeups } from "./delivery-wakeups.js";

describe("withDeliveryWakeups", () => {
  it("wakes the engine for deliveries stored alone or with their event, after the commit", async () => {
    let wakes = 0;
    const storage = withDeliveryWakeups(memoryStorage(), () => {
      wakes += 1;
    });
    const org = await seedOrganization(storage);
    const { message } = await seedMessage(storage, org);
    expect(wakes).toBe(0);
    const event = anEvent({ organizationId: org.organization.id, messageId: message.id });
    const delivery = aDelivery({
      organizationId: org.organization.id,
      eventId: event.id,
      messageId: message.id,
      destination: { kind: "subscription", webhookId: "whk_a" },
    });
    await storage.transaction(async (tx) => {
      await tx.messages.insertEvent(event, [delivery]);
      expect(wakes).toBe(0);
    });
    expect(wakes).toBe(1);
    await storage.deliveries.insert({ ...delivery, id: "0190a000-0000-7000-8000-000000000001" });
    expect(wakes).toBe(2);
  });
});
