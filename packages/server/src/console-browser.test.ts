import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { skippedUnless } from "@tidings/core/testing";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, type ServerProcess, startServer } from "./testing/child-cli.js";
import { sendOtp } from "./testing/process-cluster.js";
import { cliOrganization, runCli, tempWorkspace } from "./testing/run-cli.js";

// The console in a real browser (Debian's Chromium, never a downloaded one) against
// `tidings serve` on port 0: every step as a person would take it, elements found by role and
// accessible name, axe-core on every page, and no Content-Security-Policy violation anywhere.

const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === "true") {
  throw new Error(`${CHROMIUM} is missing; .ci/run installs it (apt-get install chromium).`);
}

/** `pnpm screenshots` sets this to docs/console; otherwise screenshots go to a temp directory. */
const SHOTS = process.env.TIDINGS_SCREENSHOTS_DIR
  ? resolve(REPO_ROOT, process.env.TIDINGS_SCREENSHOTS_DIR)
  : mkdtempSync(join(tmpdir(), "tidings-console-shots-"));

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

/** A role-and-name selector, as a screen reader finds an element. */
const aria = (role: string, name: string) => `::-p-aria([name="${name}"][role="${role}"])`;

/** A receiver that answers 500 until it is fixed. */
async function flakyReceiver() {
  let failing = true;
  let received = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received += 1;
      res.writeHead(failing ? 500 : 200, { "content-type": "text/plain" });
      res.end(failing ? "receiver is down" : "ok");
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?token=receiver-secret`,
    fix: () => {
      failing = false;
    },
    received: () => received,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

describe.skipIf(
  skippedUnless(
    haveChromium,
    `the console's browser test needs Chromium at ${CHROMIUM} (apt-get install chromium)`,
  ),
)("the console in Chromium", () => {
  const workspace = tempWorkspace();
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof flakyReceiver>>;
  let base = "";
  let orgId = "";
  const cspViolations: string[] = [];
  const env: Record<string, string> = {
    ...workspace.env,
    PATH: process.env.PATH ?? "",
    TIDINGS_DEV: "1",
    TIDINGS_LOG_LEVEL: "info",
    TIDINGS_SANDBOX_DELAY_MS: "200",
    TIDINGS_WEBHOOK_BACKOFF_BASE_MS: "100",
    TIDINGS_WEBHOOK_BACKOFF_CAP_MS: "200",
    TIDINGS_WEBHOOK_RETRY_WINDOW_MS: "1000",
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    orgId = await cliOrganization(env, "Acme Shop");
    // A campaign with a name and a template far longer than a line, for the layout to hold.
    const long = await runCli(
      [
        ..."campaigns create --org".split(" "),
        orgId,
        ..."--channel sms --category transactional --sender Acme --name".split(" "),
        `Spring-sale-reminder-for-customers-who-left-a-basket-${"x".repeat(120)}`,
        "--template",
        `Hello {{name}}, ${"your-basket-is-waiting-".repeat(60)}`,
      ],
      env,
    );
    if (long.code !== 0) throw new Error(long.stderr);
    server = await startServer(env);
    base = `http://127.0.0.1:${server.port}`;
    receiver = await flakyReceiver();
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    await browser
      .defaultBrowserContext()
      .overridePermissions(base, [
        "clipboard-read",
        "clipboard-write",
        "clipboard-sanitized-write",
      ]);
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    page.setDefaultTimeout(10_000);
    page.on("dialog", (dialog) => void dialog.accept());
    page.on("console", (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    server?.child.kill("SIGTERM");
    await server?.exited;
    workspace.cleanup();
  });

  /** axe-core on the page as it is: no serious or critical violation. */
  async function checkAccessibility(name: string) {
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
      const result = await axe.run();
      return (result.violations as Array<{ id: string; impact: string; nodes: unknown[] }>).map(
        (v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }),
      );
    });
    const grave = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(grave, `axe on ${name}`).toEqual([]);
  }

  /** axe-core, and the layout holding: long names, templates and URLs wrap, nothing scrolls sideways. */
  async function check(name: string) {
    await checkAccessibility(name);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `horizontal overflow on ${name}`).toBeLessThanOrEqual(0);
  }

  async function shot(name: string) {
    await check(name);
    await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  }

  async function clickAndWait(selector: string) {
    const element = await page.waitForSelector(selector);
    await Promise.all([page.waitForNavigation(), element?.click()]);
  }

  async function fill(label: string, text: string, role = "textbox") {
    const field = await page.waitForSelector(aria(role, label));
    await field?.click({ count: 3 });
    await page.keyboard.press("Backspace");
    await field?.type(text);
  }

  /** Reloads (at most `tries` times) until the page shows `text` (in `selector`, if given). */
  async function reloadUntil(text: string, selector = "main", tries = 40) {
    for (let i = 0; i < tries; i += 1) {
      const shown = await page.$$eval(selector, (nodes) =>
        nodes.map((node) => node.textContent ?? "").join("\n"),
      );
      if (shown.includes(text)) return;
      await new Promise((done) => setTimeout(done, 250));
      await page.reload();
    }
    throw new Error(`the page never showed ${JSON.stringify(text)} in ${selector}`);
  }

  const mainText = () => page.evaluate(() => document.querySelector("main")?.textContent ?? "");

  /** The console's own path of the page shown now, with its query. */
  const here = () => {
    const url = new URL(page.url());
    return `${url.pathname}${url.search}`;
  };

  it("signs in, runs a campaign, follows a message and its webhooks, manages keys, signs out", async () => {
    // Signed out: the sign-in page, with no data.
    const signedOut = await page.goto(`${base}/console/campaigns`);
    expect(signedOut?.status()).toBe(401);

    // A link from the CLI, and its Sign in button.
    const link = await runCli(["console", "link", "--org", orgId, "--json"], {
      ...env,
      TIDINGS_PUBLIC_URL: base,
    });
    const { url } = link.json<{ url: string }>();
    await page.goto(url);
    await checkAccessibility("sign-in");
    await clickAndWait(aria("button", "Sign in"));
    expect(new URL(page.url()).pathname).toBe("/console");
    expect(await page.$(aria("navigation", "Console"))).not.toBeNull();

    // The link is spent: opening it again shows the sign-in page with 401.
    const second = await browser.newPage();
    expect((await second.goto(url))?.status()).toBe(401);
    await second.close();

    // A campaign through the form: first refused (an OTP template needs {{pin}}), then fixed.
    await clickAndWait(aria("link", "Campaigns"));
    await fill("Name", "Login codes <script>alert(1)</script>");
    await page.select(aria("combobox", "Category"), "otp");
    await fill("Sender", "AcmeShop");
    await fill("Template", "Your code is ready");
    await clickAndWait(aria("button", "Create campaign"));
    expect(await mainText()).toContain("{{pin}}");
    const kept = await page.$eval("#name", (input) => (input as HTMLInputElement).value);
    expect(kept).toBe("Login codes <script>alert(1)</script>");
    await fill("Name", "Login codes");
    await fill("Template", "Your Acme code is {{pin}}");
    await clickAndWait(aria("button", "Create campaign"));
    expect(await mainText()).toContain("Campaign created.");
    await clickAndWait(aria("button", "Activate"));
    await shot("campaign");
    expect(await mainText()).toContain("Campaign activated");
    const campaignPath = new URL(page.url()).pathname;
    const campaignId = campaignPath.split("/").pop() ?? "";
    await (await page.waitForSelector(aria("button", "Copy ID")))?.click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(campaignId);

    // A webhook subscription to a receiver that fails.
    await clickAndWait(aria("link", "Webhooks"));
    await fill("URL", receiver.url);
    await clickAndWait(aria("button", "Create webhook"));
    expect(await mainText()).toContain("The signing secret is shown only now.");

    // An API key, its token shown once.
    await clickAndWait(aria("link", "API keys"));
    await fill("Name", "Checkout service");
    await (await page.waitForSelector(aria("checkbox", "messages:send")))?.click();
    await (await page.waitForSelector(aria("checkbox", "profiles:write")))?.click();
    await clickAndWait(aria("button", "Create key"));
    const token = await page.$eval(".secret-value", (code) => code.textContent ?? "");
    expect(token).toMatch(/^key_/);

    // A send over the API with that key.
    const sent = await sendOtp(
      base,
      { token, campaignId: copied },
      { phone: "+14155550002", pin: "4242", clientReference: "order-1042" },
    );
    const answer = (await sent.json()) as { message_id: string };
    expect(sent.status, JSON.stringify(answer)).toBe(200);
    const messageId = answer.message_id;
    // Another, whose client reference is markup: shown as text (it stays out of the pictures).
    const marked = await sendOtp(
      base,
      { token, campaignId: copied },
      { phone: "+14155550003", pin: "4243", clientReference: "order-<b>17</b>" },
    );
    const markedId = ((await marked.json()) as { message_id: string }).message_id;

    // The message, found by phone number (written as a person would) and by client reference.
    await clickAndWait(aria("link", "Messages"));
    await fill("Search", "+1 415 555 0002", "searchbox");
    await clickAndWait(aria("button", "Search"));
    expect(here()).toContain("q=%2B1+415+555+0002");
    await page.waitForSelector(`main a[href="/console/messages/${messageId}"]`);
    // On a phone (390 px), the row shows its id and the columns after it, not the id alone.
    await page.setViewport({ width: 390, height: 844 });
    const visibleColumns = await page.$eval("main .table-wrap", (wrap) => {
      const right = wrap.getBoundingClientRect().right;
      const cells = Array.from(wrap.querySelector("tbody tr")?.querySelectorAll("td") ?? []);
      return cells.filter((cell) => cell.getBoundingClientRect().right <= right + 1).length;
    });
    expect(visibleColumns).toBeGreaterThanOrEqual(3);
    await check("messages at 390 px");
    await page.setViewport({ width: 1280, height: 800 });
    await shot("messages");
    await fill("Search", "order-<b>17</b>", "searchbox");
    await clickAndWait(aria("button", "Search"));
    await clickAndWait(`main a[href="/console/messages/${markedId}"]`);
    expect(await mainText()).toContain("order-<b>17</b>");
    await page.goto(`${base}/console/messages/${messageId}`);
    await reloadUntil("seen via sms", ".timeline");
    expect(await mainText()).toContain("order-1042");

    // The subscription's deliveries fail (500) until the retry window closes: the failed
    // attempts in its delivery list, filtered by status, and the destination on the Overview.
    await clickAndWait(aria("link", "Webhooks"));
    await clickAndWait(`main a[href^="/console/webhooks/whk_"]`);
    const webhookPath = new URL(page.url()).pathname;
    await page.select(aria("combobox", "Delivery status"), "failed");
    await clickAndWait(aria("button", "Filter"));
    expect(here()).toBe(`${webhookPath}?status=failed`);
    await reloadUntil("Redeliver", ".delivery-head");
    expect(await mainText()).toContain("answered 500");
    expect(await mainText()).not.toContain("receiver-secret");
    await shot("webhook");
    await clickAndWait(aria("link", "Overview"));
    expect(await mainText()).toContain(receiver.url.split("?")[0] ?? "");
    await shot("overview");

    // The receiver is fixed; Redeliver on the message's page brings a success.
    await page.goto(`${base}/console/messages/${messageId}`);
    await shot("message");
    const before = receiver.received();
    receiver.fix();
    await clickAndWait(aria("button", "Redeliver"));
    expect(await mainText()).toContain("Delivery queued again");
    await reloadUntil("succeeded", ".delivery-head .badge");
    expect(receiver.received()).toBeGreaterThan(before);

    // An inactive campaign's channel changes through its form.
    await page.goto(`${base}${campaignPath}`);
    await clickAndWait(aria("button", "Deactivate"));
    await page.select(aria("combobox", "Channel"), "viber");
    await clickAndWait(aria("button", "Save"));
    expect(await mainText()).toContain("Campaign saved.");
    expect(await page.$eval(".facts", (facts) => facts.textContent ?? "")).toContain("Viber");

    // The key is revoked, and shown as such.
    await clickAndWait(aria("link", "API keys"));
    await clickAndWait(aria("button", "Revoke Checkout service"));
    expect(await mainText()).toContain("Revoked");
    await shot("keys");
    const refused = await fetch(`${base}/v1/messages/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(refused.status).toBe(401);

    // Every other page, checked and photographed.
    for (const [name, link] of [
      ["campaigns", "Campaigns"],
      ["webhooks", "Webhooks"],
      ["profiles", "Profiles"],
    ] as const) {
      await clickAndWait(aria("link", link));
      await shot(name);
    }
    // Suppressions: one added by the form, then its row (with Remove) checked.
    await clickAndWait(aria("link", "Suppressions"));
    await page.type("#add-phone_number", "+14155550188");
    await page.type("#add-note", "Asked by phone");
    await clickAndWait(aria("button", "Add suppression"));
    expect(await mainText()).toContain("Suppression added");
    await check("suppressions");
    // Settings: the recommended limits in one click, then a country list through the form.
    await clickAndWait(aria("link", "Settings"));
    await clickAndWait(aria("button", "Apply recommended values"));
    expect(await mainText()).toContain("Recommended limits applied");
    expect(
      await page.$eval("#destination_per_hour", (input) => (input as HTMLInputElement).value),
    ).toBe("10");
    await fill("Allowed countries", "US, XX");
    await clickAndWait(aria("button", "Save settings"));
    expect(await mainText()).toContain("is not an ISO 3166-1 alpha-2 country code");
    await fill("Allowed countries", "US, GB");
    await clickAndWait(aria("button", "Save settings"));
    expect(await mainText()).toContain("Settings saved");
    await shot("settings");
    await clickAndWait(aria("link", "Campaigns"));
    await clickAndWait(`main a[href^="/console/campaigns/cmp_"]:not([href="${campaignPath}"])`);
    await check("a campaign with a very long name and template");

    // Sign out: the session ends, and the console asks for a link again.
    await clickAndWait(aria("button", "Sign out"));
    expect(await mainText()).toContain("You have signed out.");
    expect((await page.goto(`${base}/console`))?.status()).toBe(401);
    expect(cspViolations).toEqual([]);
  }, 180_000);
});
