import { describe, expect, it } from "vitest";
import { type SpecWorld, specWorld } from "./testing/world-with-spec.js";

const ONE = "/v1/webhooks/{webhook_id}";

async function create(world: SpecWorld, body: Record<string, unknown>) {
  return world.call("POST", "/v1/webhooks", "/v1/webhooks", { body });
}

describe("webhook subscriptions over HTTP", () => {
  it("POST answers 201 with the signing secret, GET never shows it", async () => {
    const world = await specWorld();
    const created = await create(world, {
      url: "https://hooks.example.com/a",
      topics: ["message.sent"],
      description: "orders",
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ status: "active", description: "orders" });
    expect(String(created.json.signing_secret)).toMatch(/^whsec_/);
    const id = String(created.json.webhook_id);
    const read = await world.call("GET", ONE, `/v1/webhooks/${id}`);
    expect(read.status).toBe(200);
    expect(read.json.signing_secret).toBeUndefined();
    const list = await world.call("GET", "/v1/webhooks", "/v1/webhooks");
    expect(list.json).toEqual({ data: [read.json], meta: { has_more: false, next_cursor: null } });
  });

  it("PATCH answers 200, DELETE 204, rotate-secret 200 with a new secret", async () => {
    const world = await specWorld();
    const created = await create(world, { url: "https://h.example.com", topics: ["message.seen"] });
    const id = String(created.json.webhook_id);
    const patched = await world.call("PATCH", ONE, `/v1/webhooks/${id}`, {
      body: { status: "inactive" },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.status).toBe("inactive");
    const rotated = await world.call(
      "POST",
      "/v1/webhooks/{webhook_id}/rotate-secret",
      `/v1/webhooks/${id}/rotate-secret`,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.json.signing_secret).not.toBe(created.json.signing_secret);
    const deleted = await world.call("DELETE", ONE, `/v1/webhooks/${id}`);
    expect(deleted.status).toBe(204);
    expect((await world.call("GET", ONE, `/v1/webhooks/${id}`)).status).toBe(404);
  });

  it("POST /v1/webhooks/test is the test endpoint, never a webhook_id", async () => {
    const world = await specWorld();
    const created = await create(world, { url: "https://h.example.com", topics: ["message.sent"] });
    const tested = await world.call("POST", "/v1/webhooks/test", "/v1/webhooks/test", {
      body: { webhook_id: created.json.webhook_id },
    });
    expect(tested.status).toBe(200);
    expect(tested.json).toMatchObject({ success: true, status_code: 204, error: null });
    expect(world.transport.requests[0]?.headers["X-Service-Topic"]).toBe("webhook.test");
    const wrongMethod = await world.request("GET", "/v1/webhooks/test");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe("POST");
  });

  it("a query string on an endpoint that takes none is 400 naming every parameter", async () => {
    const world = await specWorld();
    const created = await create(world, { url: "https://h.example.com", topics: ["message.sent"] });
    const id = String(created.json.webhook_id);
    const list = await world.call("GET", "/v1/webhooks", "/v1/webhooks?limit=abc&cursor=x&limit=2");
    expect(list.status).toBe(400);
    expect(list.json.code).toBe("validation_failed");
    expect(list.json.errors).toEqual([
      { path: "limit", message: expect.any(String) },
      { path: "cursor", message: expect.any(String) },
    ]);
    const cases: Array<[string, string, string]> = [
      ["GET", ONE, `/v1/webhooks/${id}?expand=all`],
      ["HEAD", "/v1/webhooks", "/v1/webhooks?limit=5"],
      ["PATCH", ONE, `/v1/webhooks/${id}?status=inactive`],
      ["POST", "/v1/webhooks/{webhook_id}/rotate-secret", `/v1/webhooks/${id}/rotate-secret?x`],
      ["DELETE", ONE, `/v1/webhooks/${id}?force=1`],
    ];
    for (const [method, template, url] of cases) {
      const answer = await world.call(method, template, url, { body: { status: "inactive" } });
      expect(answer.status, `${method} ${url}`).toBe(400);
    }
    // Nothing was changed by the refused requests.
    const read = await world.call("GET", ONE, `/v1/webhooks/${id}`);
    expect(read.json).toMatchObject({ status: "active" });
    expect(read.json.updated_at).toBe(created.json.updated_at);
    // An empty query string is no parameter at all.
    expect((await world.call("GET", "/v1/webhooks", "/v1/webhooks?")).status).toBe(200);
  });

  it("a topic overlap is 409 naming the conflicting webhook", async () => {
    const world = await specWorld();
    const first = await create(world, { url: "https://a.example.com", topics: ["message.sent"] });
    const clash = await create(world, {
      url: "https://b.example.com",
      topics: ["message.delivered", "message.sent"],
    });
    expect(clash.status).toBe(409);
    expect(clash.json.code).toBe("webhook_topic_overlap");
    expect(clash.json.conflicts).toEqual([
      { id: first.json.webhook_id, reason: expect.stringContaining("message.sent") },
    ]);
  });

  it("a sixth active webhook is 409 webhook_limit_reached", async () => {
    const world = await specWorld();
    const topics = [
      "message.sent",
      "message.delivered",
      "message.seen",
      "message.clicked",
      "message.failed",
    ];
    for (const topic of topics) {
      expect((await create(world, { url: "https://a.example.com", topics: [topic] })).status).toBe(
        201,
      );
    }
    const sixth = await create(world, {
      url: "https://a.example.com",
      topics: ["message.expired"],
    });
    expect(sixth.status).toBe(409);
    expect(sixth.json.code).toBe("webhook_limit_reached");
    expect((sixth.json.conflicts as unknown[]).length).toBe(5);
  });

  it("an http URL or an unknown topic is 400 with every issue", async () => {
    const world = await specWorld();
    const invalid = await create(world, { url: "http://a.example.com", topics: ["message.nope"] });
    expect(invalid.status).toBe(400);
    const paths = (invalid.json.errors as Array<{ path: string }>).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(["url", "topics[0]"]));
  });

  it("a key without webhooks:manage is 403 naming the scope", async () => {
    const world = await specWorld();
    const profilesOnly = await world.tenant(["profiles:read", "profiles:write"]);
    const answer = await world.call("GET", "/v1/webhooks", "/v1/webhooks", {
      token: profilesOnly.token,
    });
    expect(answer.status).toBe(403);
    expect(String(answer.json.detail)).toContain("webhooks:manage");
  });
});
