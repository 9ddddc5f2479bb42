// The example provider through both contract suites every adapter runs, against its fake.
import { createIds, manualClock } from "@tidings/core";
import {
  fetchTransport,
  memoryStorage,
  REFUSING_ORIGIN,
  readableSecretBox,
  runCallbackContract,
  runProviderContract,
  seedMessage,
  seedOrganization,
} from "@tidings/core/testing";
import { acmeCallbacks, acmeProvider, acmeSignature } from "./acme-sms.js";
import { startFakeAcme } from "./fake-acme.js";

const KEY = "acme-key";
const SECRET = "acme-webhook-secret";
const hooks = () => "https://tidings.example.com/providers/acme";

runProviderContract({
  name: "acme",
  message: {
    messageId: "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b",
    channel: "sms",
    sender: "+15550001111",
    phoneNumber: "+15550002222",
    body: "Your code is 123456",
    category: "otp",
    ttlSeconds: 600,
  },
  upstream: true,
  async start(options) {
    const fake = await startFakeAcme({ apiKey: KEY, webhookSecret: SECRET });
    const make = (apiUrl: string) =>
      acmeProvider(
        { apiKey: KEY, apiUrl },
        { ...options, transport: fetchTransport, callbackBaseUrl: hooks, random: () => 0 },
      );
    return {
      provider: make(fake.url),
      fake: { answerNext: fake.answerNext, requests: () => fake.sends.length },
      unreachable: () => make(REFUSING_ORIGIN),
      close: () => fake.close(),
    };
  },
});

runCallbackContract({
  name: "acme",
  async world() {
    const clock = manualClock();
    const storage = memoryStorage();
    const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
    const org = await seedOrganization(storage);
    const { message } = await seedMessage(storage, org, {
      channel: "sms",
      smsProvider: "acme",
      smsProviderMessageId: "acme-1",
    });
    clock.set(Date.parse(message.createdAt) + 1000);
    const quiet = () => {};
    const app = acmeCallbacks({ deps, logger: { error: quiet, warn: quiet, info: quiet } }, SECRET);
    const post = (messageId: string, secret: string | null) => {
      const body = JSON.stringify({ id: "acme-1", status: "delivered" });
      const timestamp = String(Math.floor(clock.now() / 1000));
      const signed =
        secret === null ? {} : { "x-acme-signature": acmeSignature(secret, timestamp, body) };
      return app.handle({
        method: "POST",
        url: `/status?m=${messageId}`,
        headers: { "content-type": "application/json", "x-acme-timestamp": timestamp, ...signed },
        body,
      });
    };
    return {
      delivered: () => post(message.id, SECRET),
      forged: () => post(message.id, "another secret"),
      unsigned: () => post(message.id, null),
      unknownMessage: () => post("0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b", SECRET),
      topics: async () => (await storage.raw.events(message.id)).map((e) => e.topic),
    };
  },
});
