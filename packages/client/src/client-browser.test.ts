import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { skippedUnless } from "@tidings/core/testing";
import { build } from "esbuild";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../server/src/testing/eventually.js";
import type * as Client from "./index.js";
import { HOP_BY_HOP, type RawRequest } from "./testing/receivers.js";
import { type CreatedKey, type ServedTidings, serveTidings } from "./testing/served.js";

// The client in a real browser (Debian's Chromium, never a downloaded one), bundled from its
// sources by esbuild for the browser as an application would bundle it, against a real
// `tidings serve`: the page calls the API through its own origin (a proxy, as an app's
// backend would be), and verifies a webhook the server signed with Web Crypto.

const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === "true") {
  throw new Error(`${CHROMIUM} is missing; .ci/run installs it (apt-get install chromium).`);
}

const ENTRY = fileURLToPath(new URL("./index.ts", import.meta.url));

let served: ServedTidings;
let key: CreatedKey;
let campaignId: string;
let site: Server;
let origin: string;
let browser: Browser;
const hooks: RawRequest[] = [];

/** The page's origin: the page, the bundled client, `/hooks`, and `/v1` passed to Tidings. */
async function startSite(upstream: string): Promise<Server> {
  const bundle = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
  });
  const script = bundle.outputFiles[0]?.text ?? "";
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = req.url ?? "/";
    if (url === "/") {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          '<!doctype html><title>client</title><script type="module">' +
            'import * as client from "/client.js"; window.client = client;</script>',
        );
    } else if (url === "/client.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    } else if (url === "/hooks") {
      hooks.push({ method: req.method ?? "", url, headers: req.headers, body });
      res.writeHead(200).end();
    } else {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !HOP_BY_HOP.includes(name)) {
          headers.set(name, value);
        }
      }
      const answer = await fetch(upstream + url, {
        method: req.method ?? "GET",
        headers,
        ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
      });
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!["content-length", "transfer-encoding", "connection"].includes(name))
          out[name] = value;
      });
      res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

describe.skipIf(
  skippedUnless(
    haveChromium,
    `the client's browser test needs Chromium at ${CHROMIUM} (apt-get install chromium)`,
  ),
)("@tidings/client in Chromium", () => {
  beforeAll(async () => {
    served = await serveTidings();
    key = await served.newKey(await served.newOrg());
    site = await startSite(served.baseUrl);
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const campaign = await fetch(`${served.baseUrl}/v1/campaigns`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Login",
        channel: "sms",
        category: "otp",
        sender: "Acme",
        template: "Code {{pin}}",
        status: "active",
      }),
    });
    campaignId = ((await campaign.json()) as { campaign_id: string }).campaign_id;
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    site?.closeAllConnections();
    site?.close();
    await served?.stop();
  });

  it("creates, sends, walks a list, reports a refusal and verifies a webhook with Web Crypto", async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => "client" in window);
    const calls = await page.evaluate(
      async (token: string, campaign: string) => {
        const { Tidings, TidingsError } = (window as unknown as { client: typeof Client }).client;
        const tidings = new Tidings({ token, baseUrl: location.origin });
        const profile = await tidings.profiles.create({ phone_number: "+14155550111" });
        await tidings.profiles.create({ phone_number: "+14155550112" });
        const sent = await tidings.messages.send({
          campaign_id: campaign,
          recipient: { type: "public_id", value: profile.public_id },
          params: { pin: "123456" },
          webhook_url: `${location.origin}/hooks`,
        });
        const walked: string[] = [];
        for await (const p of tidings.profiles.list({ limit: 1 })) walked.push(p.phone_number);
        let refusal: unknown = null;
        try {
          await tidings.profiles.create({ phone_number: "nope" });
        } catch (error) {
          const e = error as Client.TidingsError;
          refusal = {
            isTidingsError: error instanceof TidingsError,
            status: e.status,
            code: e.code,
            paths: e.issues.map((issue) => issue.path),
            requestId: e.requestId,
          };
        }
        return { sent, walked, refusal, hasProcess: typeof process !== "undefined" };
      },
      key.token,
      campaignId,
    );
    expect(calls.sent).toMatchObject({ status: "sent" });
    expect(calls.walked).toEqual(["+14155550111", "+14155550112"]);
    expect(calls.refusal).toMatchObject({
      isTidingsError: true,
      status: 400,
      code: "validation_failed",
      paths: ["phone_number"],
      requestId: expect.any(String),
    });
    expect(calls.hasProcess).toBe(false);

    // The server's own signed webhook, verified in the page with the key's secret.
    const hook = await eventually("the message.sent webhook", async () =>
      hooks.find((h) => h.headers["x-service-topic"] === "message.sent"),
    );
    const headers = Object.fromEntries(
      Object.entries(hook.headers).filter(([name]) => name.startsWith("x-service-")),
    ) as Record<string, string>;
    const verdicts = await page.evaluate(
      async (body: string, given: Record<string, string>, secret: string) => {
        const { verifyWebhook } = (window as unknown as { client: typeof Client }).client;
        const good = await verifyWebhook(body, new Headers(given), secret);
        const bytes = await verifyWebhook(new TextEncoder().encode(body), given, secret);
        const wrong = await verifyWebhook(body, given, "whsec_wrong");
        const changed = await verifyWebhook(`${body} `, given, secret);
        return [good, bytes, wrong, changed].map((r) =>
          r.ok
            ? {
                ok: true,
                topic: r.event.topic,
                message: "message_id" in r.event.data ? r.event.data.message_id : null,
              }
            : r,
        );
      },
      hook.body.toString("utf8"),
      headers,
      key.webhook_signing_secret,
    );
    const ok = { ok: true, topic: "message.sent", message: calls.sent.message_id };
    expect(verdicts).toEqual([
      ok,
      ok,
      { ok: false, reason: "signature_mismatch" },
      { ok: false, reason: "signature_mismatch" },
    ]);
    expect(errors).toEqual([]);
  });
});
