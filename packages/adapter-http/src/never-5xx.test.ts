import {
  type Actor,
  listCampaigns,
  listDeliveries,
  listMessages,
  listProfiles,
  listWebhooks,
} from "@tidings/core";
import fc from "fast-check";
import { expect, it } from "vitest";
import { otpBody } from "./testing/http-world.js";
import { specWorld } from "./testing/world-with-spec.js";
import type { HttpRequest } from "./types.js";

const KNOWN_STATUSES = [200, 201, 204, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429];

it("thousands of generated requests never get a 5xx and never change another organization's data", {
  timeout: 120_000,
}, async () => {
  const world = await specWorld();
  const victim = await world.tenant();
  const victimActor: Actor = { organizationId: victim.organizationId, apiKeyId: null };
  const victimProfile = await world.request("POST", "/v1/profiles", {
    body: { phone_number: "+14155550177", first_name: "Victor" },
    token: victim.token,
  });
  const victimHook = await world.request("POST", "/v1/webhooks", {
    body: { url: "https://victim.example.com", topics: ["message.sent"] },
    token: victim.token,
  });
  const campaign = await world.campaign();
  const victimCampaign = await world.request("POST", "/v1/campaigns", {
    body: { name: "V", channel: "sms", category: "otp", sender: "Victim", template: "{{pin}}" },
    token: victim.token,
  });
  const victimOtp = otpBody(String(victimCampaign.json.campaign_id), {
    recipient: { type: "phone_number", value: "+14155550177" },
  });
  const victimSend = await world.request("POST", "/v1/messages/send", {
    body: victimOtp,
    token: victim.token,
  });
  // Inactive campaigns refuse sends; activate, then send one so the victim has a message.
  await world.request("POST", `/v1/campaigns/${String(victimCampaign.json.campaign_id)}/activate`, {
    token: victim.token,
  });
  const victimMessage = await world.request("POST", "/v1/messages/send", {
    body: victimOtp,
    token: victim.token,
  });
  expect([victimSend.status, victimMessage.status]).toEqual([400, 200]);
  const victimDeliveries = await listDeliveries(world.deps, victimActor, {});
  const snapshot = async () => ({
    profiles: (await listProfiles(world.deps, victimActor, { limit: "100" }))._unsafeUnwrap(),
    webhooks: (await listWebhooks(world.deps, victimActor))._unsafeUnwrap(),
    campaigns: (await listCampaigns(world.deps, victimActor, { limit: "100" }))._unsafeUnwrap(),
    messages: (await listMessages(world.deps, victimActor, { limit: "100" }))._unsafeUnwrap(),
    deliveries: (await listDeliveries(world.deps, victimActor, { limit: "100" }))._unsafeUnwrap(),
  });
  const before = await snapshot();

  const ids = [
    String(victimProfile.json.public_id),
    String(victimHook.json.webhook_id),
    campaign.campaign_id,
    String(victimCampaign.json.campaign_id),
    String(victimMessage.json.message_id),
    ...victimDeliveries._unsafeUnwrap().data.map((d) => d.delivery_id),
    "test",
    "prf_00000000000000000000000000",
    "%E0%A4%A",
    "..",
  ];
  const id = fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 40 }));
  const path = fc.oneof(
    fc.constantFrom(
      "/v1/profiles",
      "/v1/messages/send",
      "/v1/webhooks",
      "/v1/webhooks/test",
      "/v1/messages",
      "/v1/campaigns",
      "/v1/deliveries",
    ),
    id.map((x) => `/v1/messages/${x}`),
    id.map((x) => `/v1/messages/${x}/deliveries`),
    id.map((x) => `/v1/campaigns/${x}`),
    id.map((x) => `/v1/campaigns/${x}/activate`),
    id.map((x) => `/v1/campaigns/${x}/deactivate`),
    id.map((x) => `/v1/deliveries/${x}`),
    id.map((x) => `/v1/deliveries/${x}/redeliver`),
    id.map((x) => `/v1/webhooks/${x}/deliveries`),
    id.map((x) => `/v1/webhooks/${x}/recover`),
    id.map((x) => `/v1/profiles/${x}`),
    id.map((x) => `/v1/webhooks/${x}`),
    id.map((x) => `/v1/webhooks/${x}/rotate-secret`),
    id.map((x) => `/sandbox/messages/${x}/report`),
    fc
      .tuple(
        fc.constantFrom(
          "/v1/profiles",
          "/v1/webhooks",
          "/healthz",
          "/openapi.json",
          "/v1/profiles/x",
          "/v1/messages",
          "/v1/campaigns",
          "/v1/deliveries",
        ),
        fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.constantFrom(
            "limit=abc",
            "limit=5",
            "a=%00",
            "status=sent",
            "status=failed&limit=1",
            "cursor=MQ",
            "created_after=2026-01-01T00:00:00Z",
            "client_reference=%00",
            "phone_number=%2B14155550177",
          ),
        ),
      )
      .map(([at, q]) => `${at}?${q}`),
    fc.constantFrom("/healthz", "/readyz", "/openapi.json", "/", "", "*", "//x", "/v1"),
    fc.webPath(),
    fc.string({ maxLength: 80 }),
  );
  const scalar = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.double(),
  );
  const shaped = fc.record(
    {
      phone_number: fc.oneof(fc.constant("+14155550123"), scalar),
      email: scalar,
      first_name: scalar,
      campaign_id: fc.oneof(fc.constant(campaign.campaign_id), scalar),
      recipient: fc.oneof(
        fc.record({
          type: fc.constantFrom("phone_number", "email", "public_id"),
          value: fc.constantFrom(...ids),
        }),
        scalar,
      ),
      params: fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), scalar), scalar),
      url: fc.oneof(fc.constant("https://x.example.com"), scalar),
      topics: fc.oneof(fc.array(fc.constantFrom("message.sent", "message.seen", "x")), scalar),
      webhook_id: fc.oneof(fc.constantFrom(...ids), scalar),
      status: fc.oneof(fc.constantFrom("active", "inactive", "delivered"), scalar),
      name: scalar,
      channel: fc.oneof(fc.constantFrom("viber", "sms"), scalar),
      category: fc.oneof(fc.constantFrom("otp", "transactional", "promotional"), scalar),
      sender: scalar,
      template: fc.oneof(fc.constantFrom("{{pin}}", "Hi {{name}}"), scalar),
      ttl_seconds: fc.oneof(fc.integer(), scalar),
      sms_fallback: scalar,
      since: fc.oneof(fc.constant("2026-01-01T00:00:00Z"), scalar),
      attributes: fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), scalar), scalar),
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    fc.constant(undefined),
    shaped.map((value) => JSON.stringify(value)),
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 200 }),
    fc.integer({ min: 1, max: 50_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
    fc.integer({ min: 1, max: 20_000 }).map((n) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`),
    fc
      .integer({ min: 1, max: 3 })
      .map((n) => JSON.stringify({ first_name: "x".repeat(n * 400_000) })),
    fc.uint8Array({ maxLength: 64 }),
  );
  const attacker = world.main.token;
  const token = fc.oneof(
    { weight: 8, arbitrary: fc.constant(attacker) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constant(`${attacker.split(":")[0]}:nope`) },
  );
  const request = fc.record({
    method: fc.oneof(
      fc.constantFrom("GET", "POST", "PATCH", "DELETE", "PUT", "OPTIONS", "HEAD", "get", "Head"),
      fc.string({ maxLength: 8 }),
    ),
    url: path,
    token,
    contentType: fc.constantFrom(
      undefined,
      "application/json",
      "text/plain",
      "application/json; charset=latin1",
      "application/merge-patch+json",
      ";;",
    ),
    idempotencyKey: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
    requestId: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
    body,
  });

  let sent = 0;
  let succeeded = 0;
  let authenticated = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(request, { minLength: 20, maxLength: 20 }), async (batch) => {
      // A batch runs concurrently, as a server would see it; key hashing is the slow part.
      const answers = await Promise.all(
        batch.map((r) => {
          const headers: HttpRequest["headers"] = {};
          if (r.token !== undefined) headers.authorization = `Bearer ${r.token}`;
          if (r.contentType !== undefined) headers["content-type"] = r.contentType;
          if (r.idempotencyKey !== undefined) headers["idempotency-key"] = r.idempotencyKey;
          if (r.requestId !== undefined) headers["x-request-id"] = r.requestId;
          return world.app.handle({ method: r.method, url: r.url, headers, body: r.body });
        }),
      );
      sent += answers.length;
      succeeded += answers.filter((answer) => answer.status < 300).length;
      authenticated += answers.filter((answer) => answer.status !== 401).length;
      for (const [index, answer] of answers.entries()) {
        const { method, url } = batch[index] ?? { method: "", url: "" };
        expect(KNOWN_STATUSES).toContain(answer.status);
        // Every answer, error bodies included, is what the OpenAPI document says for its route.
        world.matcher.expectMatchesSpec(method, world.matcher.templateOf(url), answer);
        if (answer.status >= 400 && method.toUpperCase() !== "HEAD") {
          expect(answer.headers["content-type"]).toBe("application/problem+json");
          expect(JSON.parse(answer.body)).toMatchObject({
            status: answer.status,
            code: expect.any(String),
          });
        }
      }
    }),
    { numRuns: 100 },
  );
  expect(sent).toBe(2000);
  // The requests reached the use cases, not only the authentication wall.
  expect(authenticated).toBeGreaterThan(1000);
  expect(succeeded).toBeGreaterThan(0);
  expect(world.logged).toEqual([]);
  expect(await snapshot()).toEqual(before);
});
