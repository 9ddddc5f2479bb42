import { createServer as createNodeServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createApiKey,
  createDeliveryEngine,
  createIds,
  createOrganization,
  type Deps,
  defaultConfig,
  recordProviderReport,
  sandboxProvider,
  systemClock,
  verifyWebhook,
} from "@tidings/core";
import { cleanupsEach, memoryStorage, readableSecretBox, within } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { createHttpApp } from "./app.js";
import { createServer } from "./server.js";
import { activeCampaign } from "./testing/http-world.js";
import { createUrlPolicy } from "./url-policy.js";
import { undiciWebhookTransport } from "./webhook-transport.js";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

const cleanups = cleanupsEach();

/** A webhook receiver on loopback that answers 200 and keeps what it got. */
async function receiver() {
  const received: Received[] = [];
  let notify: () => void = () => undefined;
  const server = createNodeServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200).end("ok");
      notify();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  /** Resolves once a delivery with each topic has arrived. */
  const topics = (wanted: string[]) =>
    within(
      20_000,
      `deliveries of ${wanted.join(" and ")}`,
      new Promise<void>((resolve) => {
        const check = () => {
          const seen = received.map((r) => r.headers["x-service-topic"]);
          if (wanted.every((topic) => seen.includes(topic))) resolve();
        };
        notify = check;
        check();
      }),
    );
  return { url, received, topics };
}

it("end to end over sockets: profile, OTP send, signed message.sent and message.delivered", async () => {
  const urlPolicy = createUrlPolicy({ dev: true });
  const transport = undiciWebhookTransport({ urlPolicy });
  const provider = sandboxProvider({ delayMs: 50 });
  const deps: Deps = {
    storage: memoryStorage(),
    clock: systemClock,
    ids: createIds(),
    secretBox: readableSecretBox,
    provider,
    transport,
    urlPolicy,
    config: defaultConfig,
  };
  const engine = createDeliveryEngine(deps, { pollMs: 20 });
  provider.onReport(async (messageId, report) => {
    await recordProviderReport(deps, messageId, report);
    engine.wake();
  });
  engine.start();
  cleanups.push(() => transport.close());
  cleanups.push(() => provider.close());
  cleanups.push(() => engine.stop());

  const server = createServer(createHttpApp(deps));
  const { url } = await server.listen(0);
  cleanups.push(() => server.close());
  const hooks = await receiver();

  const org = (await createOrganization(deps, { name: "Acme" }))._unsafeUnwrap();
  const key = (
    await createApiKey(deps, {
      organization_id: org.id,
      scopes: ["profiles:write", "messages:send"],
    })
  )._unsafeUnwrap();
  const campaign = await activeCampaign(deps, org.id);
  const headers = { authorization: `Bearer ${key.token}`, "content-type": "application/json" };

  const profile = await fetch(`${url}/v1/profiles`, {
    method: "POST",
    headers,
    body: JSON.stringify({ phone_number: "+14155550100", first_name: "Ada" }),
  });
  expect(profile.status).toBe(201);

  const sent = await fetch(`${url}/v1/messages/send`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      campaign_id: campaign.campaign_id,
      recipient: { type: "phone_number", value: "+14155550100" },
      params: { pin: "918273" },
      client_reference: "login-1",
      webhook_url: hooks.url,
    }),
  });
  expect(sent.status).toBe(200);
  expect(sent.headers.get("ratelimit-remaining")).toBe("99");
  const result = (await sent.json()) as { message_id: string; status: string };
  expect(result.status).toBe("sent");
  engine.wake();

  await hooks.topics(["message.sent", "message.delivered"]);
  for (const topic of ["message.sent", "message.delivered"]) {
    const delivery = hooks.received.find((r) => r.headers["x-service-topic"] === topic);
    if (!delivery) throw new Error(`no ${topic}`);
    const verified = verifyWebhook(delivery.body, delivery.headers, key.webhook_signing_secret);
    expect(verified).toMatchObject({ value: { topic } });
    const event = JSON.parse(delivery.body) as { topic: string; data: Record<string, unknown> };
    expect(event.topic).toBe(topic);
    expect(event.data).toMatchObject({
      message_id: result.message_id,
      client_reference: "login-1",
    });
    const forged = verifyWebhook(delivery.body, delivery.headers, "whsec_not-the-secret");
    expect(forged.isErr()).toBe(true);
  }
});
