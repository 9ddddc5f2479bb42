import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { undiciProviderTransport } from "@tidings/adapter-http";
import {
  aesGcmSecretBox,
  createApiKey,
  createCampaign,
  createIds,
  createOrganization,
  type DomainError,
  generateSecretKey,
  listMessageEvents,
  parseSecretKey,
  type SendResult,
  sendMessage,
  settingsReader,
  systemClock,
} from "@tidings/core";
import { memoryStorage } from "@tidings/core/testing";
import { acmePlugin } from "./acme-sms.js";
import { startFakeAcme } from "./fake-acme.js";

/** What happened to one message: its dispatch status and its lifecycle events. */
export interface DemoSend {
  phone: string;
  status: SendResult["status"];
  topics: string[];
}

/** The demo stops at the first refusal; an application would map each error instead. */
const unwrap = <T>(result: {
  match<A, B = A>(onOk: (value: T) => A, onErr: (error: DomainError) => B): A | B;
}): T =>
  result.match(
    (value) => value,
    (error) => {
      throw new Error(`${error.code}: ${error.message}`);
    },
  );

/**
 * Wires the Acme plugin into the core as a server would: its settings read from an
 * environment, its sender built with the host's transport, its status route served on
 * loopback. Sends an OTP to two numbers: the gateway takes the first and reports it delivered
 * through the signed webhook; the second is on its block list and is refused at once.
 */
export async function runDemo(write: (line: string) => void): Promise<DemoSend[]> {
  const key = parseSecretKey(generateSecretKey());
  if (key.isErr()) throw new Error(key.error);
  const env = { TIDINGS_ACME_API_KEY: "demo-key", TIDINGS_ACME_WEBHOOK_SECRET: "demo-secret" };
  const gateway = await startFakeAcme({
    apiKey: env.TIDINGS_ACME_API_KEY,
    webhookSecret: env.TIDINGS_ACME_WEBHOOK_SECRET,
    blocked: ["+14155550102"],
  });
  const problems: string[] = [];
  const settings = acmePlugin.read(
    settingsReader({ ...env, TIDINGS_ACME_API_URL: gateway.url }, true, problems),
  );
  if (settings === null) throw new Error(problems.join(" "));

  const quiet = () => {};
  const logger = { error: write, warn: quiet, info: quiet };
  const storage = memoryStorage();
  const core = {
    storage,
    clock: systemClock,
    ids: createIds(),
    secretBox: aesGcmSecretBox(key.value),
  };
  // The callback routes, served where the server would mount them (`/providers/acme`).
  const routes = acmePlugin.callbacks(settings, {
    deps: core,
    logger,
    inbound: { receive: async () => "stored" },
    callbackBaseUrl: () => hooks,
    secretKey: key.value,
  });
  const receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = (req.url ?? "/").replace(/^\/providers\/acme/, "");
    const request = { method: req.method ?? "GET", url, headers: req.headers };
    const answer = await routes.handle({ ...request, body: Buffer.concat(chunks) });
    res.writeHead(answer.status, answer.headers).end(answer.body);
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/providers/acme`;

  const provider = acmePlugin.create(settings, {
    timeoutMs: 5_000,
    transport: undiciProviderTransport,
    clock: systemClock,
    logger,
    callbackBaseUrl: () => hooks,
    secretKey: key.value,
  });
  // No webhook URLs in this demo; a real app passes adapter-http's createUrlPolicy().
  const deps = {
    ...core,
    provider,
    urlPolicy: { check: async () => ({ allowed: true }) as const },
  };

  const org = unwrap(await createOrganization(deps, { name: "Demo" }));
  const apiKey = unwrap(
    await createApiKey(deps, { organization_id: org.id, scopes: ["messages:send"] }),
  );
  const actor = { organizationId: org.id, apiKeyId: apiKey.key_id };
  const campaign = unwrap(
    await createCampaign(deps, actor, {
      name: "Login code",
      channel: "sms",
      category: "otp",
      sender: "Demo",
      template: "Your Demo code is {{pin}}",
      status: "active",
    }),
  );

  const outcome: DemoSend[] = [];
  try {
    for (const phone of ["+14155550101", "+14155550102"]) {
      const sent = unwrap(
        await sendMessage(deps, actor, {
          campaign_id: campaign.campaign_id,
          recipient: { type: "phone_number", value: phone },
          params: { pin: "482913" },
        }),
      );
      const message = await storage.messages.getById(sent.message_id);
      const acmeId = message?.smsProviderMessageId;
      if (acmeId) {
        // The gateway took it: its delivery report comes back through the signed webhook.
        write(`SMS to ${phone}: ${String(gateway.sends.at(-1)?.text)}`);
        await gateway.report(acmeId, "delivered");
      }
      const events = unwrap(await listMessageEvents(deps, actor, sent.message_id));
      outcome.push({ phone, status: sent.status, topics: events.map((event) => event.topic) });
    }
  } finally {
    await gateway.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
  return outcome;
}
