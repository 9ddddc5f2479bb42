// The same arbitraries against the HTTP API, in-process (no socket): what one's own client
// sends is accepted exactly when Tidings' rules say so, and a refusal names every bad param.
import { createHttpApp } from "@tidings/adapter-http";
import {
  aesGcmSecretBox,
  createApiKey,
  createCampaign,
  createIds,
  createOrganization,
  type Deps,
  defaultConfig,
  generateSecretKey,
  parseSecretKey,
  sandboxProvider,
  systemClock,
} from "@tidings/core";
import { invalidParamsFor, memoryStorage, validParamsFor } from "@tidings/core/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const OTP = {
  channel: "viber",
  category: "otp",
  template: "{{pin}} is your code for {{app}}.",
} as const;

const provider = sandboxProvider({ delayMs: 60_000 });
let send: (params: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;

beforeAll(async () => {
  const key = parseSecretKey(generateSecretKey());
  if (key.isErr()) throw new Error(key.error);
  const deps: Deps = {
    storage: memoryStorage(),
    clock: systemClock,
    ids: createIds(),
    secretBox: aesGcmSecretBox(key.value),
    provider,
    transport: { post: async () => ({ kind: "error", error: "no webhooks here", durationMs: 0 }) },
    // These sends carry no webhook_url; a real app passes adapter-http's createUrlPolicy.
    urlPolicy: { check: async () => ({ allowed: true }) },
    // No 429s while fast-check sends hundreds of messages.
    config: { ...defaultConfig, sendRateLimit: 1_000_000 },
  };
  const org = (await createOrganization(deps, { name: "Props" }))._unsafeUnwrap();
  const apiKey = (
    await createApiKey(deps, { organization_id: org.id, scopes: ["messages:send"] })
  )._unsafeUnwrap();
  const actor = { organizationId: org.id, apiKeyId: apiKey.key_id };
  const campaign = (
    await createCampaign(deps, actor, { ...OTP, name: "Login", sender: "Props", status: "active" })
  )._unsafeUnwrap();
  const app = createHttpApp(deps);
  send = async (params) => {
    const response = await app.handle({
      method: "POST",
      url: "/v1/messages/send",
      headers: { authorization: `Bearer ${apiKey.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        campaign_id: campaign.campaign_id,
        recipient: { type: "phone_number", value: "+14155550101" },
        params,
      }),
    });
    return { status: response.status, body: JSON.parse(response.body) as Record<string, unknown> };
  };
});

afterAll(() => provider.close());

describe("sending through the API", () => {
  it("accepts every valid set of params", async () => {
    await fc.assert(
      fc.asyncProperty(validParamsFor(OTP), async (params) => {
        const answer = await send(params);
        expect(answer.status).toBe(200);
        expect(answer.body.status).toBe("sent");
      }),
      { numRuns: 50 },
    );
  });

  it("refuses every invalid set of params with a 400 that points into params", async () => {
    await fc.assert(
      fc.asyncProperty(invalidParamsFor(OTP), async (params) => {
        const answer = await send(params);
        expect(answer.status).toBe(400);
        const errors = answer.body.errors as Array<{ path: string }>;
        expect(errors.length).toBeGreaterThan(0);
        for (const error of errors) expect(error.path).toMatch(/^params/);
      }),
      { numRuns: 50 },
    );
  });
});
