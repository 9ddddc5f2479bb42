import { generateKeyPairSync, sign } from "node:crypto";
import { createIds, manualClock } from "@tidings/core";
import {
  memoryStorage,
  readableSecretBox,
  runCallbackContract,
  seedMessage,
  seedOrganization,
} from "@tidings/core/testing";
import { telnyxCallbacks } from "./callback-handler.js";

const ID = "40385f64-5717-4562-b3fc-2c963f66afa6";
const UNKNOWN = "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b";
const ours = generateKeyPairSync("ed25519");
const theirs = generateKeyPairSync("ed25519");

runCallbackContract({
  name: "telnyx",
  async world() {
    const clock = manualClock();
    const storage = memoryStorage();
    const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
    const org = await seedOrganization(storage);
    const { message } = await seedMessage(storage, org, {
      channel: "sms",
      smsProvider: "telnyx",
      smsProviderMessageId: ID,
    });
    clock.set(Date.parse(message.createdAt) + 1000);
    const quiet = () => {};
    const app = telnyxCallbacks({
      deps,
      publicKey: ours.publicKey,
      logger: { error: quiet, warn: quiet, info: quiet },
    });
    const post = (messageId: string, key: typeof ours.privateKey | null) => {
      const body = JSON.stringify({
        data: {
          record_type: "event",
          event_type: "message.finalized",
          payload: { id: ID, to: [{ phone_number: "+15550002222", status: "delivered" }] },
        },
      });
      const timestamp = String(Math.floor(clock.now() / 1000));
      const signature = key && sign(null, Buffer.from(`${timestamp}|${body}`), key);
      return app.handle({
        method: "POST",
        url: `/status?m=${messageId}`,
        headers: {
          "content-type": "application/json",
          "telnyx-timestamp": timestamp,
          ...(signature ? { "telnyx-signature-ed25519": signature.toString("base64") } : {}),
        },
        body,
      });
    };
    return {
      delivered: () => post(message.id, ours.privateKey),
      forged: () => post(message.id, theirs.privateKey),
      unsigned: () => post(message.id, null),
      unknownMessage: () => post(UNKNOWN, ours.privateKey),
      topics: async () => (await storage.raw.events(message.id)).map((e) => e.topic),
    };
  },
});
