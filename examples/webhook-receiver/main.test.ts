import { webhookHeaders } from "@tidings/core";
import { within } from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type ExampleProcess, startExample as startProcess } from "../testing/example-process.js";

const SECRET = "whsec_smoke";

/** The receiver; ready once it says where it receives webhooks (its URL). */
const startExample = (env: Record<string, string>) =>
  startProcess(
    "webhook-receiver/main.ts",
    [],
    { TIDINGS_WEBHOOK_SECRET: "", ...env },
    ({ stderr }) => /Receiving webhooks at (\S+)/.exec(stderr)?.[1],
  );

let running: ExampleProcess | undefined;
afterEach(() => {
  if (running?.child.exitCode === null) running.child.kill("SIGKILL");
});

const body = JSON.stringify({
  id: "0190f5c2-0000-7000-8000-00000000beef",
  topic: "message.delivered",
  created_at: new Date().toISOString(),
  data: { message_id: "m1", client_reference: "login-42", status: "delivered" },
});

const deliver = (url: string, attempt: number, secret = SECRET) =>
  fetch(url, {
    method: "POST",
    headers: webhookHeaders({
      secret,
      timestamp: Math.floor(Date.now() / 1000),
      body,
      topic: "message.delivered",
      deliveryId: "0190f5c2-0000-7000-8000-00000000beef",
      attempt,
    }),
    body,
  });

describe("examples/webhook-receiver/main.ts (smoke)", () => {
  it("prints a verified event once, refuses a bad signature, and stops cleanly on SIGTERM", async () => {
    running = startExample({ TIDINGS_WEBHOOK_SECRET: SECRET, RECEIVER_PORT: "0" });
    const url = await within(60_000, "the example to start", running.ready);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);

    expect(await (await deliver(url, 0)).json()).toEqual({ received: true, duplicate: false });
    expect(await (await deliver(url, 1)).json()).toEqual({ received: true, duplicate: true });
    expect((await deliver(url, 2, "whsec_wrong")).status).toBe(401);

    running.child.kill("SIGTERM");
    expect(await within(30_000, "the example to exit", running.exited)).toBe(0);
    const lines = running
      .stdout()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      {
        delivery_id: "0190f5c2-0000-7000-8000-00000000beef",
        topic: "message.delivered",
        attempt: 0,
        data: { message_id: "m1", client_reference: "login-42", status: "delivered" },
      },
    ]);
  });

  it("exits 2 and says what to set when TIDINGS_WEBHOOK_SECRET is missing", async () => {
    running = startExample({ RECEIVER_PORT: "0" });
    expect(await within(30_000, "the example to exit", running.exited)).toBe(2);
    expect(running.stderr()).toContain("Set TIDINGS_WEBHOOK_SECRET");
  });
});
