import { generateKeyPairSync } from "node:crypto";
import { fetchTransport, REFUSING_ORIGIN, runProviderContract } from "@tidings/core/testing";
import { startFakeVonage } from "./testing/fake-vonage.js";
import { vonageProvider } from "./vonage-provider.js";

const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const APP = "aaaaaaaa-bbbb-cccc-dddd-0123456789ab";

for (const channel of ["viber", "sms"] as const) {
  runProviderContract({
    name: "vonage",
    message: {
      messageId: "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b",
      channel,
      sender: "16273",
      phoneNumber: "+447700900000",
      body: "Your code is 123456",
      category: "otp",
      ttlSeconds: 600,
    },
    upstream: true,
    async start(options) {
      const fake = await startFakeVonage({
        applicationId: APP,
        privateKey,
        signatureSecret: "sig",
        apiKey: "key",
        retryAfterSeconds: 0,
      });
      const make = (apiUrl: string) =>
        vonageProvider({
          transport: fetchTransport,
          applicationId: APP,
          privateKey,
          apiUrl,
          callbackBaseUrl: "https://tidings.example.com/providers/vonage",
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
}
