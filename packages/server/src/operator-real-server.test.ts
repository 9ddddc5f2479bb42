import { join } from "node:path";
import { sqliteStorage } from "@tidings/adapter-sqlite";
import { redeliverDelivery, systemClock } from "@tidings/core";
import { cleanupsEach } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { startFlakyReceiver } from "./testing/flaky-receiver.js";
import { startInProcess } from "./testing/in-process.js";
import { OTP_CAMPAIGN, operatorWorkspace } from "./testing/run-cli.js";

// Issue 13 through the real server: `tidings serve` on SQLite, a receiver on port 0 that
// fails, recovers, and then gets the same delivery again when the operator redelivers it,
// also after a restart (a redelivery is just a pending row).

const cleanups = cleanupsEach();

/** A receiver that answers 500 until told to recover, closed after the test. */
async function flakyReceiver() {
  const receiver = await startFlakyReceiver();
  cleanups.push(() => receiver.close());
  return receiver;
}

it("serve opens SQLite with TIDINGS_SQLITE_SYNCHRONOUS, read back from the connection", {
  timeout: 30_000,
}, async () => {
  for (const synchronous of ["normal", "full"]) {
    const workspace = await operatorWorkspace(cleanups, {
      TIDINGS_SQLITE_SYNCHRONOUS: synchronous,
    });
    const server = startInProcess(workspace.dir, ["serve", "--port", "0"], workspace.env);
    const listening = await server.waitForLog("listening");
    await server.stop();
    expect(listening.sqlite_synchronous).toBe(synchronous);
  }
});

it("a failing receiver, its attempts in the delivery log, recovery, then redeliveries with the same id, also after a restart", {
  timeout: 60_000,
}, async () => {
  const workspace = await operatorWorkspace(cleanups, {
    // Quick retries, so the test sees several failed attempts in well under a second.
    TIDINGS_WEBHOOK_BACKOFF_BASE_MS: "100",
    TIDINGS_WEBHOOK_BACKOFF_CAP_MS: "200",
  });
  const { env, org, token } = workspace;
  const receiver = await flakyReceiver();

  const server = startInProcess(workspace.dir, ["serve", "--port", "0"], env);
  let running = true;
  cleanups.push(async () => {
    if (running) await server.stop();
  });
  const { port } = await server.waitForLog("listening");
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${String(port)}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  const campaign = await api("POST", "/v1/campaigns", OTP_CAMPAIGN);
  expect(campaign.status).toBe(201);
  const hook = await api("POST", "/v1/webhooks", { url: receiver.url, topics: ["message.sent"] });
  expect(hook.status).toBe(201);
  const sent = await api("POST", "/v1/messages/send", {
    campaign_id: campaign.json.campaign_id,
    recipient: { type: "phone_number", value: "+14155550100" },
    params: { pin: "424242" },
  });
  expect(sent.status).toBe(200);
  const messageId = String(sent.json.message_id);

  // Three failed attempts, seen in the delivery log with their status codes.
  await eventually("three failed attempts", async () =>
    receiver.arrivals.length >= 3 ? true : undefined,
  );
  const listed = await api("GET", `/v1/messages/${messageId}/deliveries`);
  const deliveryId = String((listed.json.data as Array<{ delivery_id: string }>)[0]?.delivery_id);
  const failing = await eventually("the log to show three attempts", async () => {
    const read = await api("GET", `/v1/deliveries/${deliveryId}`);
    return (read.json.attempts as unknown[]).length >= 3 ? read.json : undefined;
  });
  const attempts = failing.attempts as Array<Record<string, unknown>>;
  expect(attempts.slice(0, 3).map((a) => [a.attempt, a.status_code])).toEqual([
    [0, 500],
    [1, 500],
    [2, 500],
  ]);
  expect(String(attempts[0]?.response_body)).toMatch(/^down for maintenance z+$/);
  expect(Buffer.byteLength(String(attempts[0]?.response_body))).toBe(2048);
  expect(failing).toMatchObject({ webhook_id: hook.json.webhook_id, last_status_code: 500 });
  expect(failing.url).toBe(receiver.url.split("?")[0]);

  // The receiver recovers; the next retry succeeds.
  receiver.recover();
  const succeeded = await eventually("the delivery to succeed", async () => {
    const read = await api("GET", `/v1/deliveries/${deliveryId}`);
    return read.json.status === "succeeded" ? read.json : undefined;
  });
  const count = Number(succeeded.attempt_count);
  expect(succeeded.last_status_code).toBe(200);
  expect(receiver.arrivals.at(-1)?.status).toBe(200);
  const original = receiver.arrivals[0];

  // The operator redelivers it: the same id and body, the attempt number going on.
  const redelivered = await api("POST", `/v1/deliveries/${deliveryId}/redeliver`);
  expect(redelivered.status).toBe(202);
  expect(redelivered.json).toMatchObject({ delivery_id: deliveryId, status: "pending" });
  const again = await eventually("the redelivery to arrive", async () =>
    receiver.arrivals.length > count ? receiver.arrivals[count] : undefined,
  );
  expect(again.headers["x-service-delivery-id"]).toBe(deliveryId);
  expect(again.headers["x-service-retry-attempt"]).toBe(String(count));
  expect(again.body).toBe(original?.body);
  await eventually("the redelivery to be logged", async () => {
    const read = await api("GET", `/v1/deliveries/${deliveryId}`);
    return read.json.status === "succeeded" && read.json.attempt_count === count + 1
      ? true
      : undefined;
  });

  // The message's lifecycle and the operator's search find it too.
  const message = await api("GET", `/v1/messages/${messageId}`);
  expect((message.json.events as Array<{ topic: string }>)[0]?.topic).toBe("message.sent");
  const found = await api("GET", "/v1/messages?phone_number=%2B14155550100");
  expect((found.json.data as Array<{ message_id: string }>).map((m) => m.message_id)).toEqual([
    messageId,
  ]);
  // No log line ever shows the receiver's token.
  await server.stop();
  running = false;
  expect(server.logs().some((line) => line.msg === "webhook attempt")).toBe(true);
  expect(JSON.stringify(server.logs())).not.toContain("receiver-s3cret");

  // Redelivered while no process runs, it waits as a pending row for the next one.
  const storage = sqliteStorage(join(workspace.dir, "tidings.db"));
  const actor = { organizationId: org, apiKeyId: null };
  const offline = await redeliverDelivery({ storage, clock: systemClock }, actor, deliveryId);
  expect(offline._unsafeUnwrap().status).toBe("pending");
  await storage.close();
  const worker = startInProcess(workspace.dir, ["worker"], env);
  cleanups.push(async () => {
    await worker.stop();
  });
  const afterRestart = await eventually("the redelivery after a restart", async () =>
    receiver.arrivals.length > count + 1 ? receiver.arrivals[count + 1] : undefined,
  );
  expect(afterRestart.headers["x-service-delivery-id"]).toBe(deliveryId);
  expect(afterRestart.headers["x-service-retry-attempt"]).toBe(String(count + 1));
});
