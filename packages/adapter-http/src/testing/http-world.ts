// Test-only: an app over in-memory storage with real use cases, a fixed clock, an organization
// with an all-scopes key, and a request shortcut. Not exported from the package.
import {
  createApiKey,
  createCampaign,
  createIds,
  createOrganization,
  type Deps,
  defaultConfig,
  manualClock,
  recordProviderReport,
  SCOPES,
  type Scope,
  sandboxProvider,
} from "@tidings/core";
import {
  fakeTransport,
  httpsOnly,
  memoryStorage,
  readableSecretBox,
  status,
} from "@tidings/core/testing";
import { createHttpApp, type HttpAppOptions } from "../app.js";
import type { HttpRequest, HttpResponse } from "../types.js";

/** A response with its body parsed when it is JSON. */
export interface TestResponse extends HttpResponse {
  json: Record<string, unknown> & { [key: string]: unknown };
}

export interface RequestOptions {
  body?: unknown;
  /** A raw body, sent as is. */
  raw?: string | Uint8Array | undefined;
  headers?: Record<string, string> | undefined;
  /** The bearer token; `null` sends no Authorization header. Default: the world's key. */
  token?: string | null | undefined;
}

/** An active campaign of `organizationId`, made by the use case: OTP over SMS unless overridden. */
export const activeCampaign = async (
  deps: Pick<Deps, "storage" | "ids" | "clock">,
  organizationId: string,
  overrides: Record<string, unknown> = {},
) =>
  (
    await createCampaign(
      deps,
      { organizationId, apiKeyId: null },
      {
        name: "Login codes",
        channel: "sms",
        category: "otp",
        sender: "Tidings",
        template: "Your code is {{pin}}.",
        status: "active",
        ...overrides,
      },
    )
  )._unsafeUnwrap();

/** Never fires: reports are driven by the tests (or the sandbox route). */
const heldScheduler = { schedule: () => ({ cancel: () => undefined }) };

/** A fresh world; `appOptions` go to `createHttpApp`. */
export async function httpWorld(appOptions: HttpAppOptions = {}) {
  const clock = manualClock(Date.UTC(2026, 0, 15, 9));
  const storage = memoryStorage();
  const ids = createIds(clock);
  const provider = sandboxProvider({ scheduler: heldScheduler });
  const transport = fakeTransport(() => status(204));
  const deps: Deps = {
    storage,
    clock,
    ids,
    secretBox: readableSecretBox,
    provider,
    transport,
    urlPolicy: httpsOnly,
    config: defaultConfig,
  };
  provider.onReport(async (messageId, report) => {
    await recordProviderReport(deps, messageId, report);
  });
  const logged: Array<{ msg: string; fields?: Record<string, unknown> | undefined }> = [];
  const app = createHttpApp(deps, {
    logger: { error: (msg, fields) => logged.push({ msg, fields }) },
    ...appOptions,
  });

  /** A new organization with one key holding `scopes` (all by default). */
  const tenant = async (scopes: readonly Scope[] = SCOPES) => {
    const org = (await createOrganization(deps, { name: "Acme" }))._unsafeUnwrap();
    const key = (
      await createApiKey(deps, { organization_id: org.id, scopes: [...scopes] })
    )._unsafeUnwrap();
    return { organizationId: org.id, key, token: key.token };
  };
  const main = await tenant();

  const request = async (
    method: string,
    url: string,
    options: RequestOptions = {},
  ): Promise<TestResponse> => {
    const headers: HttpRequest["headers"] = { ...options.headers };
    const token = options.token === undefined ? main.token : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: HttpRequest["body"] = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await app.handle({ method, url, headers, body });
    const type = response.headers["content-type"] ?? "";
    const json = type.includes("json") && response.body !== "" ? JSON.parse(response.body) : {};
    return { ...response, json };
  };

  /** An active campaign of the main organization (OTP over SMS unless overridden). */
  const campaign = (overrides: Record<string, unknown> = {}) =>
    activeCampaign(deps, main.organizationId, overrides);

  return {
    clock,
    storage,
    ids,
    deps,
    provider,
    transport,
    app,
    logged,
    main,
    tenant,
    request,
    campaign,
  };
}

/** A send body: an OTP of `campaignId` (pin 123456) to +14155550100, with `extra` fields. */
export const otpBody = (campaignId: string, extra: Record<string, unknown> = {}) => ({
  campaign_id: campaignId,
  recipient: { type: "phone_number", value: "+14155550100" },
  params: { pin: "123456" },
  ...extra,
});
