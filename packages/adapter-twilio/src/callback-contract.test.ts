import { createIds, manualClock } from "@tidings/core";
import {
  memoryStorage,
  readableSecretBox,
  runCallbackContract,
  seedMessage,
  seedOrganization,
} from "@tidings/core/testing";
import twilio from "twilio";
import { twilioCallbacks } from "./callback-handler.js";

const TOKEN = "contract-auth-token";
const BASE = "https://tidings.example.com/providers/twilio";
const SID = `SM${"e".repeat(32)}`;
const UNKNOWN = "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b";

runCallbackContract({
  name: "twilio",
  async world() {
    const clock = manualClock();
    const storage = memoryStorage();
    const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
    const org = await seedOrganization(storage);
    const { message } = await seedMessage(storage, org, {
      smsProvider: "twilio",
      smsProviderMessageId: SID,
    });
    clock.set(Date.parse(message.createdAt) + 1000);
    const quiet = () => {};
    const app = twilioCallbacks({
      deps,
      authToken: TOKEN,
      publicBaseUrl: BASE,
      logger: { error: quiet, warn: quiet, info: quiet },
    });
    const post = (messageId: string, signature: (url: string, params: object) => string | null) => {
      const url = `/status?m=${messageId}`;
      const params = {
        AccountSid: `AC${"0".repeat(32)}`,
        MessageSid: SID,
        MessageStatus: "delivered",
      };
      const signed = signature(BASE + url, params);
      return app.handle({
        method: "POST",
        url,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(signed === null ? {} : { "x-twilio-signature": signed }),
        },
        body: new URLSearchParams(params).toString(),
      });
    };
    const genuine = (url: string, params: object) =>
      twilio.getExpectedTwilioSignature(TOKEN, url, params as Record<string, string>);
    return {
      delivered: () => post(message.id, genuine),
      forged: () =>
        post(message.id, (url, params) =>
          twilio.getExpectedTwilioSignature("not-the-token", url, params as Record<string, string>),
        ),
      unsigned: () => post(message.id, () => null),
      unknownMessage: () => post(UNKNOWN, genuine),
      topics: async () => (await storage.raw.events(message.id)).map((e) => e.topic),
    };
  },
});
