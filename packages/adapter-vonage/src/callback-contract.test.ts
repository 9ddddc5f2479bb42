import { createHash } from "node:crypto";
import { createIds, manualClock } from "@tidings/core";
import {
  memoryStorage,
  readableSecretBox,
  runCallbackContract,
  seedMessage,
  seedOrganization,
} from "@tidings/core/testing";
import { SignJWT } from "jose";
import { vonageCallbacks } from "./callback-handler.js";

const SECRET = "contract-signature-secret";
const API_KEY = "abcd1234";
const UUID = "aaaaaaaa-0000-4000-8000-000000000002";
const UNKNOWN = "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b";

runCallbackContract({
  name: "vonage",
  async world() {
    const clock = manualClock();
    const storage = memoryStorage();
    const deps = { storage, clock, ids: createIds(clock), secretBox: readableSecretBox };
    const org = await seedOrganization(storage);
    const { message } = await seedMessage(storage, org, {
      channel: "viber",
      viberProvider: "vonage",
      viberProviderMessageId: UUID,
      smsProvider: null,
    });
    clock.set(Date.parse(message.createdAt) + 1000);
    const quiet = () => {};
    const app = vonageCallbacks({
      deps,
      signatureSecret: SECRET,
      apiKey: API_KEY,
      logger: { error: quiet, warn: quiet, info: quiet },
    });
    const post = async (clientRef: string, secret: string | null) => {
      const body = JSON.stringify({
        message_uuid: UUID,
        status: "delivered",
        channel: "viber_service",
        client_ref: clientRef,
      });
      const token =
        secret === null
          ? null
          : await new SignJWT({
              api_key: API_KEY,
              payload_hash: createHash("sha256").update(body).digest("hex"),
              iat: Math.floor(clock.now() / 1000),
            })
              .setProtectedHeader({ alg: "HS256", typ: "JWT" })
              .sign(new TextEncoder().encode(secret));
      return app.handle({
        method: "POST",
        url: "/status",
        headers: {
          "content-type": "application/json",
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        },
        body,
      });
    };
    return {
      delivered: () => post(message.id, SECRET),
      forged: () => post(message.id, "not-the-secret"),
      unsigned: () => post(message.id, null),
      unknownMessage: () => post(UNKNOWN, SECRET),
      topics: async () => (await storage.raw.events(message.id)).map((e) => e.topic),
    };
  },
});
