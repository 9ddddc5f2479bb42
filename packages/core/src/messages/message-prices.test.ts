import { describe, expect, it } from "vitest";
import type { MessagePriceRecord } from "../ports.js";
import { decimalOf, priceOf, priceViews } from "./message-prices.js";

describe("reported prices", () => {
  it("reads each provider's way of writing a price, in millionths, a charge made positive", () => {
    expect(priceOf({ amount: 0.15, currency: "EUR" })).toEqual({
      amountMicros: 150_000,
      currency: "EUR",
    });
    expect(priceOf({ amount: "0.0333", currency: "eur" })).toEqual({
      amountMicros: 33_300,
      currency: "EUR",
    });
    expect(priceOf({ amount: "-0.00750", currency: "USD" })).toEqual({
      amountMicros: 7_500,
      currency: "USD",
    });
    expect(priceOf({ amount: "0.00000049", currency: "USD" })).toEqual({
      amountMicros: 0,
      currency: "USD",
    });
    expect(priceOf({ amount: "0.0000005", currency: "USD" })?.amountMicros).toBe(1);
    expect(priceOf({ amount: 0, currency: "EUR" })?.amountMicros).toBe(0);
  });

  it("ignores what is not a price: no currency code, not a decimal number, absurdly large", () => {
    for (const reported of [
      { amount: "0.1", currency: "EURO" },
      { amount: "0.1", currency: undefined },
      { amount: "1e-3", currency: "EUR" },
      { amount: "abc", currency: "EUR" },
      { amount: null, currency: "EUR" },
      { amount: Number.NaN, currency: "EUR" },
      { amount: "2000000", currency: "EUR" },
    ]) {
      expect(priceOf(reported), JSON.stringify(reported)).toBeNull();
    }
  });

  it("shows an amount with at least 2 decimals and no trailing zeros past them", () => {
    expect([0, 7_500, 150_000, 1_000_000, 12_345_678].map(decimalOf)).toEqual([
      "0.00",
      "0.0075",
      "0.15",
      "1.00",
      "12.345678",
    ]);
  });

  it("sums the legs of one currency; several currencies give no sum, each leg its own", () => {
    const leg = (overrides: Partial<MessagePriceRecord>): MessagePriceRecord => ({
      messageId: "m",
      organizationId: "o",
      channel: "sms",
      provider: "twilio",
      amountMicros: 7_500,
      currency: "USD",
      country: "US",
      reportedAt: "2026-01-01T00:00:00.000Z",
      ...overrides,
    });
    expect(priceViews([])).toEqual({ price: null, prices: [] });
    expect(
      priceViews([leg({}), leg({ channel: "viber", provider: "infobip", amountMicros: 12_500 })]),
    ).toEqual({
      price: { amount: "0.02", currency: "USD" },
      prices: [
        { channel: "viber", provider: "infobip", amount: "0.0125", currency: "USD" },
        { channel: "sms", provider: "twilio", amount: "0.0075", currency: "USD" },
      ],
    });
    expect(priceViews([leg({}), leg({ channel: "viber", currency: "EUR" })]).price).toBeNull();
  });
});
