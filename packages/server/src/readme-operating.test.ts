import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { cleanupsEach } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { startInProcess } from "./testing/in-process.js";
import { OTP_CAMPAIGN, operatorWorkspace } from "./testing/run-cli.js";

// The README's "Operating" section is run as written: every `sh` block in it, with curl,
// against `tidings serve` on SQLite, one failing webhook delivery and one message to find.

const README = join(import.meta.dirname, "../../../README.md");

/** The `sh` blocks of the README section `## Operating`, in order. */
function operatingBlocks(): string[] {
  const text = readFileSync(README, "utf8");
  const start = text.indexOf("\n## Operating\n");
  const end = text.indexOf("\n## ", start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
}

const cleanups = cleanupsEach();

const bash = (script: string, env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile("bash", ["-c", script], { env, timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

it("every curl example of the README's Operating section works as written", {
  timeout: 60_000,
}, async () => {
  const blocks = operatingBlocks();
  expect(blocks.length).toBeGreaterThanOrEqual(7);
  const receiver: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(503).end("busy"));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in?token=t`;

  const workspace = await operatorWorkspace(cleanups, {
    // The delivery fails for good within a second, so there is a failed one to redeliver.
    TIDINGS_WEBHOOK_BACKOFF_BASE_MS: "50",
    TIDINGS_WEBHOOK_BACKOFF_CAP_MS: "100",
    TIDINGS_WEBHOOK_RETRY_WINDOW_MS: "300",
  });
  const { env, token } = workspace;
  const server = startInProcess(workspace.dir, ["serve", "--port", "0"], env);
  cleanups.push(async () => {
    await server.stop();
  });
  const { port } = await server.waitForLog("listening");
  const base = `http://127.0.0.1:${String(port)}`;
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  const campaign = await api("POST", "/v1/campaigns", OTP_CAMPAIGN);
  const hook = await api("POST", "/v1/webhooks", { url: receiverUrl, topics: ["message.sent"] });
  const sent = await api("POST", "/v1/messages/send", {
    campaign_id: campaign.campaign_id,
    recipient: { type: "phone_number", value: "+14155550100" },
    params: { pin: "1" },
    client_reference: "order-1042",
  });
  const messageId = String(sent.message_id);
  const delivery = await eventually("a failed delivery", async () => {
    const page = await api(
      "GET",
      `/v1/webhooks/${String(hook.webhook_id)}/deliveries?status=failed`,
    );
    return (page.data as Array<{ delivery_id: string }>)[0];
  });

  const shell = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TIDINGS: base,
    TOKEN: token,
    MESSAGE_ID: messageId,
    WEBHOOK_ID: String(hook.webhook_id),
    DELIVERY_ID: delivery.delivery_id,
    CAMPAIGN_ID: String(campaign.campaign_id),
  };
  const answers: Array<Record<string, unknown>> = [];
  for (const block of blocks) {
    const run = await bash(block, shell);
    expect(run.code, `${block}\n${run.stderr}`).toBe(0);
    answers.push(JSON.parse(run.stdout) as Record<string, unknown>);
  }
  // What each example answered, in the README's order.
  expect(answers[0]).toMatchObject({ message_id: messageId, events: expect.any(Array) });
  expect(answers[1]).toMatchObject({ data: [expect.objectContaining({ message_id: messageId })] });
  expect(answers[2]).toMatchObject({ data: [expect.objectContaining({ status: "failed" })] });
  expect(answers[3]).toMatchObject({
    delivery_id: delivery.delivery_id,
    attempts: expect.any(Array),
  });
  expect(answers[4]).toMatchObject({ delivery_id: delivery.delivery_id, status: "pending" });
  expect(answers[5]).toEqual({ requeued: expect.any(Number) });
  expect(answers[6]).toMatchObject({ template: "Your code is {{pin}}. It expires in 5 minutes." });
});
