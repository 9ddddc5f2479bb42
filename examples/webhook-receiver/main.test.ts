import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { webhookHeaders } from "@tidings/core";
import { within } from "@tidings/core/testing";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SECRET = "whsec_smoke";

/**
 * The example as its README runs it, through Node with the tsx loader rather than
 * `pnpm exec tsx`, so the stop signal reaches the example's own process and its exit code is
 * the example's (pnpm and the tsx CLI sit in between otherwise).
 */
function startExample(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "examples/webhook-receiver/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, TIDINGS_WEBHOOK_SECRET: "", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  const ready = new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /Receiving webhooks at (\S+)/.exec(stderr)?.[1];
      if (url) resolve(url);
    });
    void exited.then((code) => reject(new Error(`exited ${code} before it was ready: ${stderr}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited, stdout: () => stdout, stderr: () => stderr };
}

let running: ReturnType<typeof startExample> | undefined;
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
