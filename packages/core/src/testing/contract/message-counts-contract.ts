import { describe, expect, it } from "vitest";
import type { MessageHourCount } from "../../ports.js";
import { at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { seedMessage, twoSeededOrganizations } from "./seed.js";

const HOUR = 3600;

const sorted = (lines: MessageHourCount[]) =>
  [...lines].sort((a, b) => `${a.hour}${a.status}`.localeCompare(`${b.hour}${b.status}`));

/** The overview's counts of recent messages. */
export function messageCountsContract(harness: () => StorageHarness): void {
  describe("message counts by hour", () => {
    it("counts the organization's messages since a time by creation hour and status now", async () => {
      const { storage, org, other } = await twoSeededOrganizations(harness);
      await seedMessage(storage, org, { createdAt: at(HOUR - 1) }); // before `since`
      await seedMessage(storage, org, { createdAt: at(HOUR) });
      await seedMessage(storage, org, { createdAt: at(HOUR + 59 * 60), status: "seen" });
      await seedMessage(storage, org, { createdAt: at(HOUR + 60), status: "seen" });
      await seedMessage(storage, org, { createdAt: at(3 * HOUR + 5), status: "failed" });
      await seedMessage(storage, other, { createdAt: at(HOUR) });
      const hour = (seconds: number) => at(seconds).slice(0, 13);
      expect(sorted(await storage.messages.countByHour(org.organization.id, at(HOUR)))).toEqual(
        sorted([
          { hour: hour(HOUR), status: "sent", count: 1 },
          { hour: hour(HOUR), status: "seen", count: 2 },
          { hour: hour(3 * HOUR), status: "failed", count: 1 },
        ]),
      );
      expect(await storage.messages.countByHour(org.organization.id, at(10 * HOUR))).toEqual([]);
    });

    it("counts the organization's messages since a time by current channel and status now", async () => {
      const { storage, org, other } = await twoSeededOrganizations(harness);
      await seedMessage(storage, org, { createdAt: at(HOUR - 1), channel: "viber" }); // before
      await seedMessage(storage, org, { createdAt: at(HOUR), channel: "viber" });
      await seedMessage(storage, org, { createdAt: at(HOUR + 5), channel: "viber" });
      await seedMessage(storage, org, {
        createdAt: at(HOUR + 9),
        channel: "sms",
        status: "failed",
      });
      await seedMessage(storage, org, { createdAt: at(2 * HOUR), channel: "sms" });
      await seedMessage(storage, other, { createdAt: at(HOUR), channel: "sms" });
      const key = (line: { channel: string; status: string }) => `${line.channel}${line.status}`;
      const lines = await storage.messages.countByChannel(org.organization.id, at(HOUR));
      expect([...lines].sort((a, b) => key(a).localeCompare(key(b)))).toEqual([
        { channel: "sms", status: "failed", count: 1 },
        { channel: "sms", status: "sent", count: 1 },
        { channel: "viber", status: "sent", count: 2 },
      ]);
      expect(await storage.messages.countByChannel(org.organization.id, at(10 * HOUR))).toEqual([]);
    });
  });
}
