import { describe, expect, it } from "vitest";
import { otpBody } from "./testing/http-world.js";
import { type SpecWorld, specWorld } from "./testing/world-with-spec.js";

const ONE = "/v1/campaigns/{campaign_id}";

const OTP = {
  name: "Login codes",
  channel: "sms",
  category: "otp",
  sender: "Tidings",
  template: "Your code is {{pin}}.",
};

async function create(world: SpecWorld, body: Record<string, unknown> = OTP) {
  return world.call("POST", "/v1/campaigns", "/v1/campaigns", { body });
}

describe("campaigns over HTTP", () => {
  it("POST answers 201 with the campaign, inactive by default, and GET reads it back", async () => {
    const world = await specWorld();
    const created = await create(world);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      ...OTP,
      campaign_id: expect.stringMatching(/^cmp_/),
      status: "inactive",
      sms_fallback: false,
      sms_sender: null,
      ttl_seconds: 86_400,
    });
    const id = String(created.json.campaign_id);
    const read = await world.call("GET", ONE, `/v1/campaigns/${id}`);
    expect(read.json).toEqual(created.json);
  });

  it("the template rules of the CLI hold: every problem at once, each with its path", async () => {
    const world = await specWorld();
    const refused = await create(world, { ...OTP, template: "no pin", ttl_seconds: 5, extra: 1 });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe("validation_failed");
    const paths = (refused.json.errors as Array<{ path: string }>).map((e) => e.path).sort();
    expect(paths).toEqual(["extra", "template", "ttl_seconds"]);
  });

  it("PATCH changes fields, activate and deactivate are harmless to repeat, and sends see the change", async () => {
    const world = await specWorld();
    const id = String((await create(world)).json.campaign_id);
    const activate = () => world.call("POST", `${ONE}/activate`, `/v1/campaigns/${id}/activate`);
    expect((await activate()).json.status).toBe("active");
    expect((await activate()).status).toBe(200);
    const patched = await world.call("PATCH", ONE, `/v1/campaigns/${id}`, {
      body: { template: "Code: {{pin}}", ttl_seconds: 300, name: "Codes" },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ template: "Code: {{pin}}", ttl_seconds: 300 });
    const sent = await world.request("POST", "/v1/messages/send", {
      body: otpBody(id, { params: { pin: "42" } }),
    });
    expect(sent.status).toBe(200);
    const message = await world.storage.messages.get(
      world.main.organizationId,
      String(sent.json.message_id),
    );
    expect(message?.body).toBe("Code: 42");
    // Channel and category wait for the campaign to be inactive.
    const refused = await world.call("PATCH", ONE, `/v1/campaigns/${id}`, {
      body: { channel: "viber" },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe("campaign_active");
    const deactivated = await world.call(
      "POST",
      `${ONE}/deactivate`,
      `/v1/campaigns/${id}/deactivate`,
    );
    expect(deactivated.json.status).toBe("inactive");
    const moved = await world.call("PATCH", ONE, `/v1/campaigns/${id}`, {
      body: { channel: "viber", category: "transactional", template: "Hello" },
    });
    expect(moved.status).toBe(200);
    expect(moved.json).toMatchObject({ channel: "viber", category: "transactional" });
  });

  it("concurrent PATCHes of one campaign lose no field", async () => {
    const world = await specWorld();
    const id = String((await create(world)).json.campaign_id);
    const patches = [{ name: "Renamed" }, { ttl_seconds: 600 }, { sender: "Acme" }];
    const answers = await Promise.all(
      patches.map((body) => world.call("PATCH", ONE, `/v1/campaigns/${id}`, { body })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const read = await world.call("GET", ONE, `/v1/campaigns/${id}`);
    expect(read.json).toMatchObject({ name: "Renamed", ttl_seconds: 600, sender: "Acme" });
  });

  it("GET /v1/campaigns pages newest first and filters by status", async () => {
    const world = await specWorld();
    const ids: string[] = [];
    for (const status of ["active", "inactive", "active"]) {
      ids.push(String((await create(world, { ...OTP, status })).json.campaign_id));
      world.clock.advance(1);
    }
    const first = await world.call("GET", "/v1/campaigns", "/v1/campaigns?limit=2");
    expect((first.json.data as Array<{ campaign_id: string }>).map((c) => c.campaign_id)).toEqual([
      ids[2],
      ids[1],
    ]);
    const meta = first.json.meta as { has_more: boolean; next_cursor: string };
    expect(meta.has_more).toBe(true);
    const second = await world.call(
      "GET",
      "/v1/campaigns",
      `/v1/campaigns?limit=2&cursor=${meta.next_cursor}`,
    );
    expect(second.json.meta).toEqual({ has_more: false, next_cursor: null });
    const active = await world.call("GET", "/v1/campaigns", "/v1/campaigns?status=active");
    expect((active.json.data as unknown[]).length).toBe(2);
  });

  it("bad queries are 400 naming the parameter; unknown and other organizations' ids are 404", async () => {
    const world = await specWorld();
    const id = String((await create(world)).json.campaign_id);
    for (const [query, path] of [
      ["status=paused", "status"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=x", "limit"],
      ["colour=red", "colour"],
      ["status=active&status=inactive", "status"],
    ]) {
      const answer = await world.call("GET", "/v1/campaigns", `/v1/campaigns?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.json.errors).toEqual([expect.objectContaining({ path })]);
    }
    const badCursor = await world.call("GET", "/v1/campaigns", "/v1/campaigns?cursor=%%%");
    expect(badCursor.json.code).toBe("invalid_cursor");
    const stranger = await world.tenant();
    for (const target of [id, "cmp_nope", "nothing"]) {
      for (const [method, template, suffix] of [
        ["GET", ONE, ""],
        ["PATCH", ONE, ""],
        ["POST", `${ONE}/activate`, "/activate"],
        ["POST", `${ONE}/deactivate`, "/deactivate"],
      ] as const) {
        const answer = await world.call(method, template, `/v1/campaigns/${target}${suffix}`, {
          token: stranger.token,
          ...(method === "PATCH" ? { body: { name: "x" } } : {}),
        });
        expect(answer.status, `${method} ${target}${suffix}`).toBe(404);
        expect(answer.json.code).toBe("campaign_not_found");
      }
    }
  });

  it("needs the campaigns:manage scope, which no other scope implies", async () => {
    const world = await specWorld();
    const narrow = await world.tenant([
      "profiles:read",
      "profiles:write",
      "messages:send",
      "messages:read",
      "webhooks:manage",
    ]);
    for (const [method, template, url] of [
      ["GET", "/v1/campaigns", "/v1/campaigns"],
      ["POST", "/v1/campaigns", "/v1/campaigns"],
      ["GET", ONE, "/v1/campaigns/cmp_x"],
      ["PATCH", ONE, "/v1/campaigns/cmp_x"],
      ["POST", `${ONE}/activate`, "/v1/campaigns/cmp_x/activate"],
      ["POST", `${ONE}/deactivate`, "/v1/campaigns/cmp_x/deactivate"],
    ] as const) {
      const answer = await world.call(method, template, url, { token: narrow.token, body: OTP });
      expect(answer.status, `${method} ${url}`).toBe(403);
      expect(answer.json.code).toBe("missing_scope");
    }
  });
});
