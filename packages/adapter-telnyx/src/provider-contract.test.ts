import { fetchTransport, REFUSING_ORIGIN, runProviderContract } from "@tidings/core/testing";
import { telnyxProvider } from "./telnyx-provider.js";
import { startFakeTelnyx } from "./testing/fake-telnyx.js";

runProviderContract({
  name: "telnyx",
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
    const fake = await startFakeTelnyx({ apiKey: "KEY0123", retryAfterSeconds: 0 });
    const make = (apiUrl: string) =>
      telnyxProvider({
        transport: fetchTransport,
        apiKey: "KEY0123",
        apiUrl,
        callbackBaseUrl: () => "https://tidings.example.com/providers/telnyx",
        random: () => 0,
        ...options,
      });
    return {
      provider: make(fake.url),
      fake: {
        answerNext: (...faults) => fake.answerNext(...faults),
        requests: () => fake.sends.length,
      },
      unreachable: () => make(REFUSING_ORIGIN),
      close: () => fake.close(),
    };
  },
});
