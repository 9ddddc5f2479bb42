import {
  type ContractFault,
  fetchTransport,
  REFUSING_ORIGIN,
  runProviderContract,
} from "@tidings/core/testing";
import { infobipProvider } from "./infobip-provider.js";
import { type FakeInfobipAnswer, startFakeInfobip } from "./testing/fake-infobip.js";

const API_KEY = "contract-key";
const SECRET = new Uint8Array(32).fill(3);

/** The contract's faults in the fake's words: a cut connection after Infobip took the message. */
const answerOf = (fault: ContractFault): FakeInfobipAnswer =>
  fault === "drop" ? "drop_after_taking" : fault;

// A normal account, and one with Infobip's opt-in idempotent sending, where a request that may
// have reached Infobip is sent again and the duplicate refusal of the retry means accepted.
for (const idempotent of [false, true]) {
  for (const channel of ["viber", "sms"] as const) {
    runProviderContract({
      name: "infobip",
      retriesUnknownOutcome: idempotent,
      message: {
        messageId: "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b",
        channel,
        sender: "AcmeShop",
        phoneNumber: "+41793026727",
        body: "Your order has shipped",
        category: "transactional",
        ttlSeconds: 600,
      },
      upstream: true,
      async start(options) {
        const fake = await startFakeInfobip({
          apiKey: API_KEY,
          retryAfterSeconds: 0,
          ...(idempotent ? { idempotent: "answer" as const } : {}),
        });
        const make = (baseUrl: string) =>
          infobipProvider({
            transport: fetchTransport,
            baseUrl,
            apiKey: API_KEY,
            callbackBaseUrl: "https://tidings.example.com/providers/infobip",
            secretKey: SECRET,
            idempotent,
            random: () => 0,
            ...options,
          });
        return {
          provider: make(fake.url),
          fake: {
            answerNext: (...faults) => fake.answerNext(...faults.map(answerOf)),
            requests: () => fake.sends.length,
          },
          unreachable: () => make(REFUSING_ORIGIN),
          close: () => fake.close(),
        };
      },
    });
  }
}
