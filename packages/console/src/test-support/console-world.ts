// A console over the in-memory storage with a manual clock, two organizations, and request
// shortcuts that sign in and carry the CSRF token. Not exported from the package.

import type { HttpResponse } from "@tidings/adapter-http";
import {
  createApiKey,
  createCampaign,
  createDeliveryEngine,
  createIds,
  createOrganization,
  createSignInToken,
  createWebhook,
  type Deps,
  defaultConfig,
  manualClock,
  type SecretBox,
  sandboxProvider,
  sendMessage,
  type WebhookRequest,
  type WebhookTransport,
} from "@tidings/core";
import { memoryStorage } from "@tidings/core/testing";
import { type ConsoleOptions, createConsole, SESSION_COOKIE } from "../console-app.js";

/** Text with HTML, script and quotes, which every page must show as text. */
export const HOSTILE = `<script>alert("x")</script>'"&amp;`;

/** The campaign form as a person fills it in: a valid, active SMS campaign. */
export const CAMPAIGN_FORM: Record<string, string> = {
  name: "Order updates",
  channel: "sms",
  category: "transactional",
  sender: "Acme",
  template: "Your order {{order}} shipped",
  status: "active",
};

/** Seals as `sealed:<plaintext>` so stored values stay readable in assertions. */
const plainSecretBox: SecretBox = {
  seal: (plaintext) => `sealed:${plaintext}`,
  open: (sealed) => sealed.slice("sealed:".length),
};

/** A signed-in browser: its cookie and the CSRF token its pages carry. */
export interface Browser {
  cookie: string;
  csrf: string;
}

/** The console, its storage and two organizations; `options` adds to the console's. */
export async function consoleWorld(options: Pick<ConsoleOptions, "devMode"> = {}) {
  const clock = manualClock(Date.UTC(2026, 5, 1, 12));
  const transportRequests: WebhookRequest[] = [];
  let receiverStatus = 204;
  const transport: WebhookTransport = {
    async post(request) {
      transportRequests.push(request);
      return { kind: "response", status: receiverStatus, headers: {}, body: "", durationMs: 3 };
    },
  };
  const deps: Deps = {
    storage: memoryStorage(),
    clock,
    ids: createIds(),
    secretBox: plainSecretBox,
    provider: sandboxProvider({ delayMs: 0 }),
    transport,
    urlPolicy: {
      check: async (url) =>
        url.startsWith("https://")
          ? { allowed: true }
          : { allowed: false, reason: "must be an https URL." },
    },
    config: defaultConfig,
    links: { baseUrl: "https://t.example.com", dev: false },
  };
  const app = createConsole(deps, {
    basePath: "/console",
    logger: { error: () => undefined },
    ...options,
  });
  const org = (await createOrganization(deps, { name: "Acme" }))._unsafeUnwrap();
  const otherOrg = (await createOrganization(deps, { name: "Globex" }))._unsafeUnwrap();

  async function request(
    method: string,
    url: string,
    options: {
      cookie?: string;
      form?: Record<string, string | string[]>;
      headers?: Record<string, string>;
    } = {},
  ): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.cookie) headers.cookie = `${SESSION_COOKIE}=${options.cookie}`;
    let body: string | undefined;
    if (options.form) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(options.form)) {
        for (const one of Array.isArray(value) ? value : [value]) params.append(name, one);
      }
      body = params.toString();
      headers["content-type"] = "application/x-www-form-urlencoded";
    }
    return app.handle({ method, url, headers, body });
  }

  /** A sign-in token for an organization, as `tidings console link` makes one. */
  async function linkToken(organizationId = org.id, minutes = 15): Promise<string> {
    return (await createSignInToken(deps, organizationId, minutes))._unsafeUnwrap().token;
  }

  /** Signs in through the sign-in page's form, as a person pressing "Sign in" would. */
  async function signIn(organizationId = org.id): Promise<Browser> {
    const token = await linkToken(organizationId);
    const answer = await request("POST", "/sign-in", { form: { token } });
    const setCookie = answer.headers["set-cookie"] ?? "";
    const cookie = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(setCookie)?.[1];
    if (answer.status !== 303 || !cookie) throw new Error(`sign-in failed: ${answer.status}`);
    const overview = await request("GET", "/", { cookie });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(overview.body)?.[1];
    if (!csrf) throw new Error("no CSRF token on the overview");
    return { cookie, csrf };
  }

  /** A campaign (active, SMS, transactional, `{{order}}` in its template) of an organization. */
  async function campaign(organizationId = org.id, overrides: Record<string, unknown> = {}) {
    const created = await createCampaign(
      deps,
      { organizationId, apiKeyId: null },
      { ...CAMPAIGN_FORM, ...overrides },
    );
    return created._unsafeUnwrap();
  }

  /** A subscription of an organization to message.sent, delivering to `url`. */
  async function webhook(url: string, organizationId = org.id, description?: string) {
    const created = await createWebhook(
      deps,
      { organizationId, apiKeyId: null },
      { url, topics: ["message.sent"], ...(description === undefined ? {} : { description }) },
    );
    return created._unsafeUnwrap();
  }

  /** A message sent to `phone` by a fresh key of the campaign's organization; its id. */
  async function send(
    organizationId: string,
    campaignId: string,
    extra: Record<string, unknown> = {},
    phone = "+14155550002",
  ): Promise<string> {
    const key = (
      await createApiKey(deps, { organization_id: organizationId, scopes: ["messages:send"] })
    )._unsafeUnwrap();
    const sent = await sendMessage(
      deps,
      { organizationId, apiKeyId: key.key_id },
      {
        campaign_id: campaignId,
        recipient: { type: "phone_number", value: phone },
        params: { order: "1" },
        ...extra,
      },
    );
    return (sent._unsafeUnwrap() as unknown as { message_id: string }).message_id;
  }

  const engine = createDeliveryEngine(deps, { owner: "console-world", random: () => 0.5 });

  return {
    deps,
    clock,
    app,
    campaign,
    webhook,
    send,
    /** Makes one attempt of every due delivery, as the delivery engine would. */
    deliver: () => engine.runOnce(),
    org,
    otherOrg,
    transportRequests,
    setReceiverStatus: (status: number) => {
      receiverStatus = status;
    },
    request,
    linkToken,
    signIn,
    get: (browser: Browser | null, url: string) =>
      request("GET", url, browser ? { cookie: browser.cookie } : {}),
    post: (browser: Browser, url: string, form: Record<string, string | string[]> = {}) =>
      request("POST", url, { cookie: browser.cookie, form: { csrf_token: browser.csrf, ...form } }),
  };
}

export type ConsoleWorld = Awaited<ReturnType<typeof consoleWorld>>;
