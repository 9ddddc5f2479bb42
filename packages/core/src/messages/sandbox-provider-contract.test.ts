import { runProviderContract } from "../testing/contract/provider-contract.js";
import { sandboxProvider } from "./sandbox-provider.js";

// The sandbox has no upstream to fail: it runs the parts of the contract that need no fake.
for (const channel of ["viber", "sms"] as const) {
  runProviderContract({
    name: "sandbox",
    message: {
      messageId: "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b",
      channel,
      sender: "Acme",
      phoneNumber: "+41791234567",
      body: "Your code is 123456",
      category: "otp",
      ttlSeconds: 300,
    },
    upstream: false,
    async start() {
      const provider = sandboxProvider({ delayMs: 60_000 });
      return { provider, fake: null, unreachable: null, close: () => provider.close() };
    },
  });
}
