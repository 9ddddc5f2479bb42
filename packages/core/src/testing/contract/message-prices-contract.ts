import { describe, expect, it } from "vitest";
import type { MessagePriceRecord } from "../../ports.js";
import { at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { seedMessage, twoSeededOrganizations } from "./seed.js";

/** What legs cost: kept once per leg, listed per message, summed per country; retention's too. */
export function messagePricesContract(harness: () => StorageHarness): void {
  describe("message prices", () => {
    const priceOf = (
      message: { id: string; organizationId: string },
      overrides: Partial<MessagePriceRecord> = {},
    ): MessagePriceRecord => ({
      messageId: message.id,
      organizationId: message.organizationId,
      channel: "sms",
      provider: "vonage",
      amountMicros: 33_300,
      currency: "EUR",
      country: "GB",
      reportedAt: at(100),
      ...overrides,
    });

    it("keeps the first price of a leg (a zero gives way to a real one), sums by country and currency, counts sends by prefix; retention deletes prices", async () => {
      const { storage, org, other } = await twoSeededOrganizations(harness);
      const { message: one } = await seedMessage(storage, org);
      const { message: two } = await seedMessage(storage, org);
      const { message: theirs } = await seedMessage(storage, other);
      expect(await storage.messages.recordPrice(priceOf(one))).toBe(true);
      // A repeat of the leg's report: kept as it was.
      expect(await storage.messages.recordPrice(priceOf(one, { amountMicros: 9 }))).toBe(false);
      expect(
        await storage.messages.recordPrice(
          priceOf(one, { channel: "viber", provider: "infobip", amountMicros: 0 }),
        ),
      ).toBe(true);
      expect(
        await storage.messages.recordPrice(
          priceOf(one, { channel: "viber", provider: "infobip", amountMicros: 12_500 }),
        ),
      ).toBe(true);
      expect(
        await storage.messages.recordPrice(
          priceOf(two, { amountMicros: 7_500, currency: "USD", country: null }),
        ),
      ).toBe(true);
      expect(await storage.messages.recordPrice(priceOf(two, { reportedAt: at(1) }))).toBe(false);
      expect(await storage.messages.recordPrice(priceOf(theirs))).toBe(true);

      const listed = await storage.messages.listPrices(org.organization.id, [one.id, theirs.id]);
      expect(listed.sort((a, b) => a.channel.localeCompare(b.channel))).toEqual([
        priceOf(one),
        priceOf(one, { channel: "viber", provider: "infobip", amountMicros: 12_500 }),
      ]);
      expect(await storage.messages.listPrices(org.organization.id, [])).toEqual([]);

      const spend = await storage.messages.spendByCountry(org.organization.id, at(50));
      expect(spend.sort((a, b) => a.currency.localeCompare(b.currency))).toEqual([
        { country: "GB", currency: "EUR", amountMicros: 45_800, legs: 2 },
        { country: null, currency: "USD", amountMicros: 7_500, legs: 1 },
      ]);
      expect(await storage.messages.spendByCountry(org.organization.id, at(101))).toEqual([]);

      // The Overview's sends per country: counts by number prefix, each with a sample number.
      await seedMessage(storage, org, { phoneNumber: "+447700900123", createdAt: at(10) });
      await seedMessage(storage, org, { phoneNumber: "+447700900001", createdAt: at(20) });
      await seedMessage(storage, org, { phoneNumber: "+41793026729", createdAt: at(30) });
      await seedMessage(storage, org, { phoneNumber: "+41793026729", createdAt: at(1) }); // before
      await seedMessage(storage, other, { phoneNumber: "+447700900123", createdAt: at(10) });
      const lines = await storage.messages.countByPrefix(org.organization.id, at(5), 7);
      expect(lines.sort((a, b) => a.prefix.localeCompare(b.prefix))).toEqual([
        { prefix: "+417930", sample: "+41793026729", count: 1 },
        { prefix: "+447700", sample: "+447700900001", count: 2 },
      ]);

      // Retention deletes a message's prices with it.
      const { message: old } = await seedMessage(storage, org, {
        createdAt: at(-100),
        status: "delivered",
      });
      await storage.messages.recordPrice(priceOf(old));
      const batch = await storage.retention.deleteOldMessages({
        createdBefore: at(0),
        now: at(1000),
        after: null,
        limit: 10,
      });
      expect(batch.deleted).toBe(1);
      expect(await storage.messages.listPrices(org.organization.id, [old.id])).toEqual([]);
      expect(await storage.messages.listPrices(org.organization.id, [one.id])).toHaveLength(2);
    });
  });
}
