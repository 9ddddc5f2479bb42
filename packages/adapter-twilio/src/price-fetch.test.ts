import { manualClock } from "@tidings/core";
import { cleanupsEach, memoryStorage, seedMessage, seedOrganization } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { twilioPriceFetcher } from "./price-fetch.js";
import { startFakeTwilio } from "./testing/fake-twilio.js";

const ACCOUNT = `AC${"3".repeat(32)}`;
const TOKEN = "price-test-token";
const cleanups = cleanupsEach();

/** Polls `check` every 10 ms, at most 300 times. */
async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

it("reads each message's price after the wait, again while Twilio has none, within its bounds", async () => {
  const fake = await startFakeTwilio({ accountSid: ACCOUNT, authToken: TOKEN });
  cleanups.push(() => fake.close());
  const accept = async () => {
    const answer = await fetch(`${fake.url}/2010-04-01/Accounts/${ACCOUNT}/Messages.json`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${ACCOUNT}:${TOKEN}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ To: "+14155550123", From: "Acme", Body: "Hi" }).toString(),
    });
    return ((await answer.json()) as { sid: string }).sid;
  };
  const storage = memoryStorage();
  const org = await seedOrganization(storage);
  const [never, priced, dropped] = [await accept(), await accept(), await accept()];
  const messages = [];
  for (const sid of [never, priced, dropped]) {
    const { message } = await seedMessage(storage, org, {
      phoneNumber: "+14155550123",
      smsProvider: "twilio",
      smsProviderMessageId: sid,
    });
    messages.push(message);
  }
  const reported: unknown[] = [];
  const warnings: string[] = [];
  const fetcher = twilioPriceFetcher({
    accountSid: ACCOUNT,
    authToken: TOKEN,
    apiUrl: fake.url,
    deps: {
      storage,
      clock: manualClock(),
      telemetry: { messageSent: () => undefined, priceReported: (p) => reported.push(p) },
    },
    logger: { error: () => undefined, info: () => undefined, warn: (m) => warnings.push(m) },
    delaysMs: [5, 5],
    maxWaiting: 2,
  });
  cleanups.push(() => fetcher.close());

  fake.setPrice(priced, "-0.00790", "USD");
  fetcher.fetchLater(messages[0]?.id ?? "", never);
  fetcher.fetchLater(messages[1]?.id ?? "", priced);
  // Two are waiting already: the third is dropped, and said so.
  fetcher.fetchLater(messages[2]?.id ?? "", dropped);
  expect(warnings).toEqual(["twilio price read dropped: too many waiting"]);

  await until(
    "both reads of the unpriced message",
    () => fake.messageReads.filter((sid) => sid === never).length === 2,
  );
  await until("the priced message's price", () => reported.length === 1);
  expect(reported).toEqual([
    { provider: "twilio", currency: "USD", country: "US", amount: 0.0079 },
  ]);
  const prices = await storage.messages.listPrices(
    org.organization.id,
    messages.map((m) => m.id),
  );
  expect(prices.map((p) => [p.messageId, p.amountMicros, p.currency])).toEqual([
    [messages[1]?.id, 7_900, "USD"],
  ]);
  expect(fake.messageReads).not.toContain(dropped);
  // Room again: one more is taken.
  fetcher.fetchLater(messages[2]?.id ?? "", dropped);
  await until("the read of the once dropped message", () => fake.messageReads.includes(dropped));
  // Given up after the last wait: no third read of the unpriced one, one read of the priced.
  expect(fake.messageReads.filter((sid) => sid === never)).toHaveLength(2);
  expect(fake.messageReads.filter((sid) => sid === priced)).toHaveLength(1);
  expect(warnings).toHaveLength(1);
});
