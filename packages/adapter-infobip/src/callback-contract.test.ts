import { createIds, manualClock } from "@tidings/core";
import {
  memoryStorage,
  readableSecretBox,
  runCallbackContract,
  seedMessage,
  seedOrganization,
} from "@tidings/core/testing";
import { infobipCallbacks } from "./callback-handler.js";
import { callbackKey, legToken } from "./callback-token.js";

const SECRET = new Uint8Array(32).fill(5);
const UNKNOWN = "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b";

runCallbackContract({
  name: "infobip",
  async world() {
    const clock = manualClock();
    const storage = memoryStorage();
    const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
    const org = await seedOrganization(storage);
    const { message } = await seedMessage(storage, org, {
      channel: "viber",
      viberProvider: "infobip",
      smsProvider: null,
    });
    clock.set(Date.parse(message.createdAt) + 1000);
    const quiet = () => {};
    const app = infobipCallbacks({
      deps,
      secretKey: SECRET,
      logger: { error: quiet, warn: quiet, info: quiet },
    });
    const key = callbackKey(SECRET);
    const post = (leg: string, token: string | null) =>
      app.handle({
        method: "POST",
        url: token === null ? `/${leg}/delivery` : `/${leg}.${token}/delivery`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          results: [
            {
              messageId: leg,
              status: { groupName: "DELIVERED", id: 5, name: "DELIVERED_TO_HANDSET" },
              error: { id: 0, name: "NO_ERROR" },
            },
          ],
        }),
      });
    return {
      delivered: () => post(message.id, legToken(key, message.id)),
      forged: () => post(message.id, legToken(callbackKey(new Uint8Array(32)), message.id)),
      unsigned: () => post(message.id, null),
      unknownMessage: () => post(UNKNOWN, legToken(key, UNKNOWN)),
      topics: async () => (await storage.raw.events(message.id)).map((e) => e.topic),
    };
  },
});
