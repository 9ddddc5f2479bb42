import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { REPO_ROOT } from "./testing/child-cli.js";
import { typeCheckAsUser } from "./testing/type-check.js";
import { packedWorkspace, run } from "./testing/workspace-build.js";

/**
 * The packages as a user gets them: built (in a temporary copy of the workspace), packed with
 * `pnpm pack`, and installed with npm from the tarballs into a fresh project outside the
 * workspace, where a small program embeds core, SQLite and HTTP and sends a message through
 * the sandbox. Third-party dependencies come from the npm registry; only better-sqlite3 is
 * linked to the workspace's copy with its native module already compiled (compiling SQLite
 * takes minutes; npm checks that its version satisfies the packages' ranges all the same).
 */

let dir: string;
let app: string;

// The build and its tarballs are shared per source state (about 40 s when no other test made
// them yet); npm then resolves some hundred packages from the registry or its cache.
const SETUP_TIMEOUT_MS = 600_000;

const PROGRAM = `
import { createServer as createReceiver } from "node:http";
import { createHttpApp, createServer, createUrlPolicy, undiciWebhookTransport } from "@tidings/adapter-http";
import { sqliteStorage } from "@tidings/adapter-sqlite";
import {
  aesGcmSecretBox, createApiKey, createCampaign, createDeliveryEngine, createIds,
  createOrganization, defaultConfig, generateSecretKey, parseSecretKey, recordProviderReport,
  sandboxProvider, systemClock, verifyWebhook,
} from "@tidings/core";
import { memoryStorage } from "@tidings/core/memory";
import { createConsole } from "@tidings/console";

const key = parseSecretKey(generateSecretKey());
const urlPolicy = createUrlPolicy({ dev: true });
const provider = sandboxProvider({ delayMs: 20 });
const deps = {
  storage: sqliteStorage(process.argv[2]),
  clock: systemClock,
  ids: createIds(),
  secretBox: aesGcmSecretBox(key._unsafeUnwrap()),
  provider,
  transport: undiciWebhookTransport({ urlPolicy }),
  urlPolicy,
  config: defaultConfig,
};
const engine = createDeliveryEngine(deps, { pollMs: 50 });
provider.onReport(async (messageId, report) => {
  await recordProviderReport(deps, messageId, report);
  engine.wake();
});
engine.start();

const org = (await createOrganization(deps, { name: "Packed" }))._unsafeUnwrap();
const apiKey = (await createApiKey(deps, { organization_id: org.id, scopes: ["messages:send"] }))._unsafeUnwrap();
const campaign = (await createCampaign(deps, { organizationId: org.id, apiKeyId: null }, {
  name: "Login", channel: "sms", category: "otp", sender: "Packed",
  template: "Your code is {{pin}}", status: "active",
}))._unsafeUnwrap();

const topics = [];
let verified = true;
const receiver = createReceiver((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const check = verifyWebhook(Buffer.concat(chunks), req.headers, apiKey.webhook_signing_secret);
    verified &&= check.isOk();
    topics.push(req.headers["x-service-topic"]);
    res.writeHead(200).end();
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));

const server = createServer(createHttpApp(deps));
const { url } = await server.listen(0);
const answer = await fetch(url + "/v1/messages/send", {
  method: "POST",
  headers: { authorization: "Bearer " + apiKey.token, "content-type": "application/json" },
  body: JSON.stringify({
    campaign_id: campaign.campaign_id,
    recipient: { type: "phone_number", value: "+14155550101" },
    params: { pin: "123456" },
    webhook_url: "http://127.0.0.1:" + receiver.address().port + "/hooks",
  }),
});
const sent = await answer.json();
for (let i = 0; i < 200 && !topics.includes("message.seen"); i++) {
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const memory = memoryStorage();
await memory.ping();
// The web console serves its stylesheet and script from the installed package itself.
const webConsole = createConsole(deps);
const assets = {};
for (const name of ["console.css", "console.js"]) {
  const asset = await webConsole.handle({ method: "GET", url: "/assets/" + name, headers: {} });
  assets[name] = asset.status + " " + asset.headers["content-type"] + " " + (asset.body.length > 500);
}
const signIn = (await webConsole.handle({ method: "GET", url: "/sign-in?token=x", headers: {} })).status;
console.log(JSON.stringify({ status: answer.status, sent, topics, verified, assets, signIn }));
await server.close();
await engine.stop();
await provider.close();
receiver.close();
await deps.storage.close();
await memory.close();
`;

/** The same program's imports, type-checked against the installed packages' `.d.ts`. */
const TYPED = `
import { createFetchHandler, createHttpApp, type FetchHandler } from "@tidings/adapter-http";
import { sqliteStorage } from "@tidings/adapter-sqlite";
import { postgresStorage } from "@tidings/adapter-postgres";
import { type Deps, sendMessage, verifyWebhook } from "@tidings/core";
import { memoryStorage, type MemoryStorage } from "@tidings/core/memory";

export const storage: MemoryStorage = memoryStorage();
export const file = sqliteStorage(":memory:");
export const pg: typeof postgresStorage = postgresStorage;
export function mount(deps: Deps): FetchHandler {
  return createFetchHandler(createHttpApp(deps), { prefix: "/messaging" });
}
export const send: typeof sendMessage = sendMessage;
export const verified: boolean = verifyWebhook("{}", {}, "whsec_x").isOk();
// @ts-expect-error the handler takes a Request, not a string
mount({} as Deps)("/v1/profiles");
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-packed-"));
  app = join(dir, "app");
  const tarballs = await packedWorkspace();
  const betterSqlite = dirname(
    realpathSync(
      join(
        REPO_ROOT,
        "packages",
        "adapter-sqlite",
        "node_modules",
        "better-sqlite3",
        "package.json",
      ),
    ),
  );
  const dependencies: Record<string, string> = { "better-sqlite3": `file:${betterSqlite}` };
  for (const [name, tarball] of Object.entries(tarballs)) dependencies[name] = `file:${tarball}`;
  mkdirSync(app);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "packed-app", private: true, type: "module", dependencies }),
  );
  await run(
    "npm",
    [
      "install",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      "--loglevel=error",
    ],
    app,
  );
  writeFileSync(join(app, "main.mjs"), PROGRAM);
  writeFileSync(join(app, "typed.ts"), TYPED);
}, SETUP_TIMEOUT_MS);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

// The three checks read the installed project and write nothing in it but their own files, so
// they run at once: the type-check (the longest) beside the program and the command.
describe.concurrent("the packages, packed and installed with npm into a fresh project", () => {
  it("embed core, SQLite and HTTP: a send through the sandbox, signed webhooks to the end, and the console with its assets", async ({
    expect,
  }) => {
    const output: string[] = [];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ["main.mjs", join(dir, "app.db")], { cwd: app });
      child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString()));
      child.once("error", reject);
      child.once("close", resolve);
    });
    expect(code, output.join("")).toBe(0);
    const result = JSON.parse(output.join("").trim().split("\n").at(-1) ?? "{}");
    expect(result).toMatchObject({ status: 200, sent: { status: "sent" }, verified: true });
    expect(result.assets).toEqual({
      "console.css": "200 text/css; charset=utf-8 true",
      "console.js": "200 text/javascript; charset=utf-8 true",
    });
    expect(result.signIn).toBe(401);
    expect(result.topics).toEqual(["message.sent", "message.delivered", "message.seen"]);
  });

  it("type-check for a TypeScript user, core/memory included", async ({ expect }) => {
    await expect(
      // Node's own types from the workspace: a TypeScript user of these packages has them.
      typeCheckAsUser(app, "typed.ts", { typeRoots: [join(REPO_ROOT, "node_modules", "@types")] }),
    ).resolves.toBeUndefined();
  }, 180_000);

  it("install the tidings command, which migrates a fresh SQLite database", async ({ expect }) => {
    const bin = join(app, "node_modules", ".bin", "tidings");
    const env = { ...process.env, TIDINGS_DATABASE_URL: `sqlite:${join(dir, "cli.db")}` };
    const migrated = spawnSync(bin, ["migrate", "--json"], { cwd: app, env, encoding: "utf8" });
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout)).toMatchObject({ applied: expect.any(Array) });
  });
});
