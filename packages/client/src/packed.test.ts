import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { within } from "@tidings/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../server/src/testing/child-cli.js";
import { typeCheckAsUser } from "../../server/src/testing/type-check.js";
import { packedWorkspace, run } from "../../server/src/testing/workspace-build.js";
import { type ServedTidings, serveTidings } from "./testing/served.js";

/**
 * The client as a user gets it: built (in the shared temporary copy of the workspace), packed
 * with `pnpm pack`, installed with `npm install --offline` into an empty project (it has no
 * dependency, so no registry is needed), and run there against `tidings serve`: the
 * quickstart, its webhook verified. Its types check for a Node.js user with and without the
 * DOM library.
 */

const SETUP_TIMEOUT_MS = 600_000;

const PROGRAM = `
import { createServer } from "node:http";
import { Tidings, TidingsError, verifyWebhook } from "@tidings/client";

const [baseUrl, token, secret] = process.argv.slice(2);
const tidings = new Tidings({ baseUrl, token });
let verified;
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    const result = await verifyWebhook(Buffer.concat(chunks), req.headers, secret);
    verified ??= result.ok ? result.event.topic : result.reason;
    res.writeHead(200).end();
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));

const campaign = await tidings.campaigns.create({
  name: "Login", channel: "sms", category: "otp", sender: "Acme",
  template: "Code {{pin}}", status: "active",
});
const profile = await tidings.profiles.create({ phone_number: "+14155550101" });
const sent = await tidings.messages.send({
  campaign_id: campaign.campaign_id,
  recipient: { type: "public_id", value: profile.public_id },
  params: { pin: "123456" },
  webhook_url: "http://127.0.0.1:" + receiver.address().port + "/hooks",
});
const listed = [];
for await (const p of tidings.profiles.list()) listed.push(p.public_id);
let refused;
try {
  await tidings.profiles.create({ phone_number: "nope" });
} catch (error) {
  refused = { isTidingsError: error instanceof TidingsError, code: error.code, issues: error.issues.length };
}
for (let i = 0; i < 200 && verified === undefined; i++) await new Promise((r) => setTimeout(r, 50));
receiver.close();
console.log(JSON.stringify({ status: sent.status, listed: listed.length, refused, verified }));
`;

const TYPED = `
import { Tidings, TidingsError, verifyWebhook, type Profile, type WebhookEvent } from "@tidings/client";

const tidings = new Tidings({ baseUrl: "http://127.0.0.1:3000", token: "k:s", fetch: globalThis.fetch });
export const profile: Promise<Profile> = tidings.profiles.create({ phone_number: "+14155550101" });
export const event = async (body: string, headers: Record<string, string>): Promise<WebhookEvent | null> => {
  const result = await verifyWebhook(body, headers, "whsec_x");
  return result.ok ? result.event : null;
};
export const limited = (error: unknown): number | null =>
  TidingsError.is(error, "rate_limited") ? error.retryAfter : null;
// @ts-expect-error recipient.type is phone_number, email or public_id
void tidings.messages.send({ campaign_id: "c", recipient: { type: "fax", value: "1" } });
`;

let dir: string;
let app: string;
let served: ServedTidings;
let packedManifest: Record<string, unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-client-packed-"));
  app = join(dir, "app");
  const [packed, server] = await Promise.all([packedWorkspace(), serveTidings()]);
  served = server;
  const tarball = packed["@tidings/client"] ?? "";
  packedManifest = JSON.parse(
    execFileSync("tar", ["-xOzf", tarball, "package/package.json"], { encoding: "utf8" }),
  );
  mkdirSync(join(app, "node_modules", "@types"), { recursive: true });
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({
      name: "client-app",
      private: true,
      type: "module",
      dependencies: { "@tidings/client": `file:${tarball}` },
    }),
  );
  await run(
    "npm",
    ["install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
    app,
  );
  // Node's types from the workspace: a TypeScript user on Node.js has them.
  symlinkSync(
    realpathSync(join(REPO_ROOT, "node_modules", "@types", "node")),
    join(app, "node_modules", "@types", "node"),
    "dir",
  );
  writeFileSync(join(app, "main.mjs"), PROGRAM);
  writeFileSync(join(app, "typed.ts"), TYPED);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("@tidings/client, packed and installed offline into an empty project", () => {
  it("has no dependency and ships only dist", () => {
    expect(packedManifest.dependencies).toBeUndefined();
    expect(packedManifest.files).toEqual(["dist"]);
  });

  it("runs the quickstart against tidings serve, its webhook verified", async () => {
    const key = await served.newKey(await served.newOrg());
    const output: string[] = [];
    const code = await within(
      60_000,
      "the installed program",
      new Promise<number | null>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ["main.mjs", served.baseUrl, key.token, key.webhook_signing_secret],
          { cwd: app },
        );
        child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString()));
        child.once("error", reject);
        child.once("close", resolve);
      }),
    );
    expect(code, output.join("")).toBe(0);
    expect(JSON.parse(output.join("").trim().split("\n").at(-1) ?? "{}")).toEqual({
      status: "sent",
      listed: 1,
      refused: { isTidingsError: true, code: "validation_failed", issues: 1 },
      verified: expect.stringMatching(/^message\./),
    });
  });

  it("type-checks for a Node.js user, with the DOM library and without it", async () => {
    await within(120_000, "tsc with the DOM library", typeCheckAsUser(app, "typed.ts"));
    await within(
      120_000,
      "tsc without it",
      typeCheckAsUser(app, "typed.ts", { lib: ["ES2022"], exactOptionalPropertyTypes: true }),
    );
  }, 300_000);
});
