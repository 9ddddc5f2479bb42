// A webhook receiver for the quickstart: verifies every signature, handles each delivery once.
//   TIDINGS_WEBHOOK_SECRET=whsec_… pnpm exec tsx examples/webhook-receiver/main.ts
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createWebhookReceiver } from "./receiver.js";

const secret = process.env.TIDINGS_WEBHOOK_SECRET;
if (!secret) {
  console.error("Set TIDINGS_WEBHOOK_SECRET to the key's webhook_signing_secret.");
  process.exit(2);
}
const port = Number(process.env.RECEIVER_PORT ?? 4000);

const receiver = createWebhookReceiver({
  secret,
  onEvent: ({ deliveryId, topic, attempt, body }) => {
    // One JSON line per event, so a script can follow along.
    console.log(JSON.stringify({ delivery_id: deliveryId, topic, attempt, data: body.data }));
  },
});

const server = createServer((req, res) => {
  receiver(req, res).catch((error: unknown) => {
    console.error(error);
    res.destroy();
  });
});
server.listen(port, "127.0.0.1", () => {
  const { port: actual } = server.address() as AddressInfo;
  console.error(`Receiving webhooks at http://127.0.0.1:${actual}/webhooks`);
});
const stop = () => server.close(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
