import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { waitUntil, within } from "@tidings/core/testing";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  devChildEnv,
  REPO_ROOT,
  runChildCliJson,
  type ServerProcess,
  startServer,
} from "./testing/child-cli.js";
import { typeCheckAsUser } from "./testing/type-check.js";
import { startTopicReceiver, type TopicReceiver } from "./testing/webhook-tally.js";
import { run } from "./testing/workspace-build.js";

/**
 * A client generated from the served OpenAPI document, as a user would make one: TypeScript
 * types by openapi-typescript, calls through openapi-fetch. The client runs the quickstart
 * against a real `tidings serve`, after type-checking under strict settings, where a send with
 * `params: 42` must not compile.
 */

/** The client, written as a user of the generated types would write it. */
const CLIENT = `
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

type SendRequest = components["schemas"]["SendMessageRequest"];
type Profile = components["schemas"]["Profile"];

const [baseUrl = "", token = "", campaignId = "", webhookUrl = ""] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl, headers: { authorization: "Bearer " + token } });

const created = await client.POST("/v1/profiles", {
  body: { phone_number: "+1 415 555 0101", first_name: "Ada", last_name: "Lovelace" },
  params: { header: { "Idempotency-Key": "signup-1" } },
});
if (!created.data) throw new Error("create failed: " + JSON.stringify(created.error));
const profile: Profile = created.data;
const source: "api" | "import" | "shopify" | "woocommerce" = profile.source;

const send: SendRequest = {
  campaign_id: campaignId,
  recipient: { type: "phone_number", value: profile.phone_number },
  params: { pin: "123456" },
  client_reference: "login-42",
  webhook_url: webhookUrl,
};
const sent = await client.POST("/v1/messages/send", { body: send });
if (!sent.data) throw new Error("send failed: " + JSON.stringify(sent.error));
// "scheduled" only for a campaign with a sending window or a send with send_at.
const status: "sent" | "failed" | "scheduled" = sent.data.status;

const found = await client.GET("/v1/profiles", {
  params: { query: { phone_number: "+14155550101", limit: 10 } },
});
const refused = await client.POST("/v1/profiles", { body: { phone_number: "nope" } });

console.log(JSON.stringify({
  public_id: profile.public_id,
  source,
  status,
  message_id: sent.data.message_id,
  client_reference: sent.data.client_reference,
  found: found.data?.data.map((p) => p.public_id),
  refused: { status: refused.response.status, code: refused.error?.code },
}));

/** Never called: it only has to fail to compile where the comment says. */
export function wrong() {
  return client.POST("/v1/messages/send", {
    body: {
      campaign_id: campaignId,
      recipient: { type: "phone_number", value: "+14155550101" },
      // @ts-expect-error params is an object of strings, so a number does not type-check
      params: 42,
    },
  });
}

/** Never called: an unknown recipient type is not one of the enum's values. */
export function wrongType() {
  return client.POST("/v1/messages/send", {
    body: {
      campaign_id: campaignId,
      // @ts-expect-error recipient.type is phone_number, email or public_id
      recipient: { type: "fax", value: "+14155550101" },
    },
  });
}
`;

const SETUP_TIMEOUT_MS = 120_000;

let dir: string;
let env: Record<string, string>;
let server: ServerProcess;
let receiver: TopicReceiver;

const tidings = <T>(...args: string[]): Promise<T> => runChildCliJson<T>(args, env);

/** Links a package the server's tests depend on into the client's own node_modules. */
const linkPackage = (name: string) => {
  const installed = realpathSync(join(REPO_ROOT, "packages", "server", "node_modules", name));
  symlinkSync(installed, join(dir, "node_modules", name), "dir");
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tidings-client-"));
  mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
  linkPackage("openapi-fetch");
  symlinkSync(
    realpathSync(join(REPO_ROOT, "node_modules", "@types", "node")),
    join(dir, "node_modules", "@types", "node"),
    "dir",
  );
  env = devChildEnv(dir);
  receiver = await startTopicReceiver();
  server = await startServer(env);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  server?.child.kill("SIGKILL");
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a client generated from /openapi.json", () => {
  it("type-checks under strict settings, refuses params: 42, and runs the quickstart", async () => {
    const base = `http://127.0.0.1:${server.port}`;
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as OpenAPI3;
    const types = astToString(await openapiTS(document));
    // Every request body is a named schema, so the generated types carry the names.
    for (const name of ["CreateProfileRequest", "SendMessageRequest", "CreateWebhookRequest"]) {
      expect(types).toContain(`${name}: {`);
    }
    writeFileSync(join(dir, "api.d.ts"), types);
    writeFileSync(join(dir, "client.ts"), CLIENT);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
    await within(
      150_000,
      "tsc",
      typeCheckAsUser(dir, "client.ts", {
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
      }),
    );

    const org = await tidings<{ org_id: string }>("orgs", "create", "--name", "Acme");
    const scopes = "profiles:read,profiles:write,messages:send,webhooks:manage";
    const key = await tidings<{ token: string }>(
      ...["keys", "create", "--org", org.org_id, "--scopes", scopes],
    );
    const campaign = await tidings<{ campaign_id: string }>(
      ...["campaigns", "create", "--org", org.org_id, "--name", "Login", "--channel", "sms"],
      ...["--category", "otp", "--sender", "Acme", "--template", "Code {{pin}}", "--active"],
    );
    const output: string[] = [];
    const client = run(
      process.execPath,
      [
        "--import",
        pathToFileURL(join(REPO_ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href,
        "client.ts",
        base,
        key.token,
        campaign.campaign_id,
        receiver.url,
      ],
      dir,
      (chunk) => output.push(chunk),
    );
    await within(60_000, "the client", client);
    const result = JSON.parse(output.join("").trim().split("\n").at(-1) ?? "{}");
    expect(result).toMatchObject({
      public_id: expect.stringMatching(/^prf_/),
      source: "api",
      status: "sent",
      client_reference: "login-42",
      refused: { status: 400, code: "validation_failed" },
    });
    expect(result.found).toEqual([result.public_id]);
    await waitUntil("the message.delivered webhook", 10_000, () =>
      receiver.topics.includes("message.delivered"),
    );
    expect(receiver.topics).toEqual(expect.arrayContaining(["message.sent", "message.delivered"]));
  }, 300_000);
});
