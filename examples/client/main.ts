// The quickstart through @tidings/client: find or create a profile, send it a one-time code
// with a per-message webhook, verify each webhook with the client's verifyWebhook, and show
// a refused request as the TidingsError it becomes. Prints one JSON line per step.
//   TIDINGS_URL=… TIDINGS_TOKEN=… TIDINGS_WEBHOOK_SECRET=… TIDINGS_CAMPAIGN_ID=… pnpm exec tsx examples/client/main.ts
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Profile, Tidings, TidingsError, verifyWebhook } from "@tidings/client";

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (!value) {
    console.error(`Set ${name} (see examples/client/README.md).`);
    process.exit(2);
  }
  return value;
};

const tidings = new Tidings({
  baseUrl: env("TIDINGS_URL", "http://127.0.0.1:3000"),
  token: env("TIDINGS_TOKEN"),
});
const secret = env("TIDINGS_WEBHOOK_SECRET");
const campaignId = env("TIDINGS_CAMPAIGN_ID");
const phone = env("PHONE_NUMBER", "+14155550101");
const print = (line: Record<string, unknown>) => console.log(JSON.stringify(line));

// 1. A receiver for the message's webhooks; the events it has verified, by topic.
const topics = new Set<string>();
let settle: () => void = () => {};
const seen = new Promise<void>((resolve) => {
  settle = resolve;
});
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", async () => {
    // The raw bytes, as received: the signature covers them, not a re-serialized object.
    const result = await verifyWebhook(Buffer.concat(chunks), req.headers, secret);
    if (!result.ok) {
      print({ step: "webhook refused", reason: result.reason });
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200).end();
    const { event } = result;
    if (event.topic === "webhook.test" || event.topic === "profile.erased") return;
    if (topics.has(event.topic)) return;
    topics.add(event.topic);
    print({ step: "webhook", topic: event.topic, message_id: event.data.message_id });
    if (event.topic === "message.seen") settle();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;

// 2. The profile: created, or found when this phone number already has one.
let profile: Profile;
try {
  profile = await tidings.profiles.create({
    phone_number: phone,
    first_name: "Ada",
    last_name: "Lovelace",
  });
  print({ step: "profile created", public_id: profile.public_id });
} catch (error) {
  if (!TidingsError.is(error, "phone_number_taken")) throw error;
  const [found] = (await tidings.profiles.list({ phone_number: phone }).page()).data;
  if (!found) throw error;
  profile = found;
  print({ step: "profile found", public_id: profile.public_id });
}

// 3. The send: retried safely under one Idempotency-Key if the network or server hiccups.
const sent = await tidings.messages.send({
  campaign_id: campaignId,
  recipient: { type: "public_id", value: profile.public_id },
  params: { pin: "123456" },
  client_reference: "login-42",
  webhook_url: webhookUrl,
});
print({ step: "sent", message_id: sent.message_id, status: sent.status });

// 4. A bad request: one error class, with the stable code and every issue at its path.
try {
  await tidings.profiles.create({ phone_number: "not a number", first_name: "A" });
} catch (error) {
  if (!(error instanceof TidingsError)) throw error;
  print({ step: "refused", status: error.status, code: error.code, issues: error.issues });
}

// 5. Wait for the sandbox to report the message seen (bounded), then stop.
const waited = await Promise.race([
  seen.then(() => true),
  new Promise<false>((resolve) => setTimeout(() => resolve(false), 30_000).unref()),
]);
receiver.close();
if (!waited) {
  print({ step: "gave up", topics: [...topics] });
  process.exit(1);
}
