import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { within } from "@tidings/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  devChildEnv,
  runChildCliJson,
  type ServerProcess,
  startServer,
} from "../../packages/server/src/testing/child-cli.js";
import { type ExampleProcess, startExample } from "../testing/example-process.js";

let dir: string;
let server: ServerProcess;
let env: Record<string, string>;
let running: ExampleProcess | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-client-example-"));
  const childEnv = devChildEnv(dir);
  server = await startServer(childEnv);
  const cli = <T>(...args: string[]) => runChildCliJson<T>(args, childEnv);
  const org = await cli<{ org_id: string }>("orgs", "create", "--name", "Acme");
  const key = await cli<{ token: string; webhook_signing_secret: string }>(
    ...[
      "keys",
      "create",
      "--org",
      org.org_id,
      "--scopes",
      "profiles:read,profiles:write,messages:send",
    ],
  );
  const campaign = await cli<{ campaign_id: string }>(
    ...["campaigns", "create", "--org", org.org_id, "--name", "Login", "--channel", "sms"],
    ...["--category", "otp", "--sender", "Acme", "--template", "Code {{pin}}", "--active"],
  );
  env = {
    TIDINGS_URL: `http://127.0.0.1:${server.port}`,
    TIDINGS_TOKEN: key.token,
    TIDINGS_WEBHOOK_SECRET: key.webhook_signing_secret,
    TIDINGS_CAMPAIGN_ID: campaign.campaign_id,
  };
}, 120_000);

afterAll(() => {
  if (running?.child.exitCode === null) running.child.kill("SIGKILL");
  server?.child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const run = async () => {
  running = startExample("client/main.ts", [], env, () => "started");
  expect(await within(60_000, "the example to finish", running.exited)).toBe(0);
  return running
    .stdout()
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
};

describe("examples/client/main.ts (smoke)", () => {
  it("creates, sends, verifies every webhook and shows a refusal; a second run finds the profile", async () => {
    const lines = await run();
    const steps = lines.map((line) => line.step);
    expect(steps.slice(0, 2)).toEqual(["profile created", "sent"]);
    expect(lines.find((line) => line.step === "refused")).toMatchObject({
      status: 400,
      code: "validation_failed",
      issues: [
        { path: "phone_number", message: expect.any(String) },
        { path: "first_name", message: expect.any(String) },
      ],
    });
    const webhooks = lines.filter((line) => line.step === "webhook");
    expect(webhooks.map((line) => line.topic)).toEqual(
      expect.arrayContaining(["message.sent", "message.delivered", "message.seen"]),
    );
    expect(new Set(webhooks.map((line) => line.message_id))).toEqual(
      new Set([lines[1]?.message_id]),
    );
    expect(steps).not.toContain("webhook refused");

    const again = await run();
    expect(again[0]).toMatchObject({ step: "profile found", public_id: lines[0]?.public_id });
  });
});
