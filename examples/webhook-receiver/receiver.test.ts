import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { webhookHeaders } from "@tidings/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWebhookReceiver, type ReceivedEvent } from "./receiver.js";

const secret = "whsec_example";
let server: Server;
let url: string;
let events: ReceivedEvent[];
let failNext: boolean;

beforeEach(async () => {
  events = [];
  failNext = false;
  const receiver = createWebhookReceiver({
    secret,
    onEvent: (event) => {
      if (failNext) {
        failNext = false;
        throw new Error("database down");
      }
      events.push(event);
    },
  });
  server = createServer((req, res) => void receiver(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
});
afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

const body = JSON.stringify({
  id: "0190f5c2-0000-7000-8000-000000000001",
  topic: "message.delivered",
  created_at: new Date().toISOString(),
  data: { message_id: "m1", status: "delivered" },
});

const deliver = (payload: string, attempt = 0, signWith = secret, sentBody = payload) =>
  fetch(url, {
    method: "POST",
    headers: webhookHeaders({
      secret: signWith,
      timestamp: Math.floor(Date.now() / 1000),
      body: payload,
      topic: "message.delivered",
      deliveryId: "0190f5c2-0000-7000-8000-000000000001",
      attempt,
    }),
    body: sentBody,
  });

describe("the example webhook receiver", () => {
  it("handles a signed delivery once and acknowledges its retries as duplicates", async () => {
    expect(await (await deliver(body)).json()).toEqual({ received: true, duplicate: false });
    expect(await (await deliver(body, 1)).json()).toEqual({ received: true, duplicate: true });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ topic: "message.delivered", attempt: 0 });
  });

  it("refuses a body changed in transit and one signed with another secret", async () => {
    expect((await deliver(body, 0, secret, body.replace("delivered", "clicked"))).status).toBe(401);
    expect((await deliver(body, 0, "whsec_other")).status).toBe(401);
    expect(events).toHaveLength(0);
  });

  it("answers 500 when handling fails, and handles the retry", async () => {
    failNext = true;
    expect((await deliver(body)).status).toBe(500);
    expect((await deliver(body, 1)).status).toBe(200);
    expect(events.map((e) => e.attempt)).toEqual([1]);
  });
});
