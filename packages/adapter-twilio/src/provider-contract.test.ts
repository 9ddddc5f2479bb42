import { fetchTransport, REFUSING_ORIGIN, runProviderContract } from "@tidings/core/testing";
import { startFakeTwilio } from "./testing/fake-twilio.js";
import { twilioProvider } from "./twilio-provider.js";

const ACCOUNT = `AC${"6".repeat(32)}`;
const TOKEN = "contract-token";

runProviderContract({
  name: "twilio",
  message: {
    messageId: "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b",
    channel: "sms",
    sender: "+15005550006",
    phoneNumber: "+14155552671",
    body: "Your code is 123456",
    category: "otp",
    ttlSeconds: 300,
  },
  upstream: true,
  async start(options) {
    const fake = await startFakeTwilio({
      accountSid: ACCOUNT,
      authToken: TOKEN,
      retryAfterSeconds: 0,
    });
    const make = (apiUrl: string) =>
      twilioProvider({
        transport: fetchTransport,
        accountSid: ACCOUNT,
        authToken: TOKEN,
        apiUrl,
        callbackBaseUrl: "https://tidings.example.com/providers/twilio",
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
