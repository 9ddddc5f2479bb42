import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyWebhook } from "@tidings/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliEntry,
  devChildEnv,
  runChildCliJson,
  type ServerProcess,
  startServer,
  stopChild,
} from "./testing/child-cli.js";
import { builtCli } from "./testing/workspace-build.js";

/**
 * The README quickstart, driven through the built CLI (`packages/server/dist/bin.js`, built
 * first in a temporary copy of the workspace, as on a clean clone) as child processes: serve on a free port,
 * create an organization, a key and an active OTP campaign, import 1,000 profiles (10 bad),
 * send with webhook_url, receive and verify message.sent and message.delivered, SIGTERM,
 * a clean exit, and the data still there after a restart.
 */

interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

let dir: string;
let env: Record<string, string>;
let receiver: Server;
let receiverUrl: string;
let builtEntry: CliEntry;
const received: Received[] = [];
const running: ServerProcess[] = [];

// The build (tsup with .d.ts of the server and the four packages it depends on) takes about
// 35 s on a developer machine; a slow CI runner gets several times that, and another test may
// be making the same build, which this one then waits for.
const BUILD_TIMEOUT_MS = 600_000;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-quickstart-"));
  env = devChildEnv(dir);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  builtEntry = await builtCli();
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  for (const server of running) server.child.kill("SIGKILL");
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const cli = <T>(...args: string[]): Promise<T> => runChildCliJson<T>(args, env, builtEntry);

const until = async <T>(what: string, probe: () => T | undefined): Promise<T> => {
  for (let i = 0; i < 200; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/** 1,000 CSV rows; the rows at these file lines are bad (line 1 is the header). */
const BAD_LINES = [2, 50, 101, 250, 333, 500, 667, 800, 999, 1001];

function writeProfiles(): string {
  const lines = ["phone_number,first_name,last_name,sms_marketing_consent"];
  for (let i = 0; i < 1000; i++) {
    const line = i + 2;
    const phone = `+1415555${String(i).padStart(4, "0")}`;
    if (!BAD_LINES.includes(line)) lines.push(`${phone},Customer,Number${i},true`);
    else if (line % 2 === 0) lines.push(`555-${i},Bad,Phone,true`);
    else lines.push(`${phone},X,Short,maybe`);
  }
  const path = join(dir, "profiles.csv");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

describe("the quickstart", () => {
  it("runs end to end through the CLI and survives a restart", async () => {
    const server = await startServer(env, builtEntry);
    running.push(server);
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    const { org_id } = await cli<{ org_id: string }>("orgs", "create", "--name", "Acme");
    const key = await cli<{ token: string; webhook_signing_secret: string }>(
      "keys",
      "create",
      "--org",
      org_id,
      "--scopes",
      "profiles:read,profiles:write,messages:send",
    );
    const campaign = await cli<{ campaign_id: string; status: string }>(
      "campaigns",
      "create",
      "--org",
      org_id,
      "--name",
      "Login code",
      "--channel",
      "sms",
      "--category",
      "otp",
      "--sender",
      "Acme",
      "--template",
      "Your Acme code is {{pin}}",
      "--active",
    );
    expect(campaign.status).toBe("active");

    const summary = await cli<{ rows: number; created: number; rejected: Array<{ line: number }> }>(
      "profiles",
      "import",
      "--org",
      org_id,
      "--file",
      writeProfiles(),
    );
    expect(summary).toMatchObject({ rows: 1000, created: 990 });
    expect(summary.rejected.map((r) => r.line)).toEqual(BAD_LINES);

    const auth = { authorization: `Bearer ${key.token}`, "content-type": "application/json" };
    const phone = "+14155550002";
    const sent = await fetch(`${base}/v1/messages/send`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        campaign_id: campaign.campaign_id,
        recipient: { type: "phone_number", value: phone },
        params: { pin: "123456" },
        client_reference: "login-42",
        webhook_url: receiverUrl,
      }),
    });
    expect(sent.status).toBe(200);
    const message = (await sent.json()) as { message_id: string; status: string };
    expect(message.status).toBe("sent");

    const topics = await until("message.sent and message.delivered", () => {
      const seen = received.map((r) => r.headers["x-service-topic"]);
      return seen.includes("message.sent") && seen.includes("message.delivered") ? seen : undefined;
    });
    expect(topics.slice(0, 2)).toEqual(["message.sent", "message.delivered"]);
    for (const webhook of received) {
      const verified = verifyWebhook(webhook.raw, webhook.headers, key.webhook_signing_secret);
      expect(verified.isOk()).toBe(true);
      const body = JSON.parse(webhook.raw.toString()) as {
        id: string;
        data: Record<string, unknown>;
      };
      expect(body.id).toBe(webhook.headers["x-service-delivery-id"]);
      expect(body.data).toMatchObject({
        message_id: message.message_id,
        client_reference: "login-42",
      });
    }

    const found = await fetch(`${base}/v1/profiles?phone_number=${encodeURIComponent(phone)}`, {
      headers: auth,
    });
    const page = (await found.json()) as { data: Array<{ public_id: string; last_name: string }> };
    expect(page.data).toEqual([expect.objectContaining({ last_name: "Number2" })]);
    const publicId = page.data[0]?.public_id;

    expect(await stopChild(server)).toBe(0);
    expect(server.logs.filter((entry) => "not_json" in entry)).toEqual([]);
    expect(server.logs.map((entry) => entry.msg)).toEqual(
      expect.arrayContaining(["shutting down", "stopped"]),
    );

    const restarted = await startServer(env, builtEntry);
    running.push(restarted);
    const again = await fetch(`http://127.0.0.1:${restarted.port}/v1/profiles/${publicId}`, {
      headers: auth,
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ public_id: publicId, phone_number: phone });
    expect(await stopChild(restarted)).toBe(0);
  });
});
