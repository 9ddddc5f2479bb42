import { describe, expect, it } from "vitest";
import { otpBody } from "./testing/http-world.js";
import { type SpecWorld, specWorld } from "./testing/world-with-spec.js";

const ONE = "/v1/messages/{message_id}";

async function send(world: SpecWorld, campaignId: string, extra: Record<string, unknown> = {}) {
  const sent = await world.request("POST", "/v1/messages/send", {
    body: otpBody(campaignId, extra),
  });
  expect(sent.status).toBe(200);
  world.clock.advance(1000);
  return String(sent.json.message_id);
}

describe("reading messages over HTTP", () => {
  it("GET /v1/messages/{id} shows the message with every event, oldest first, and its URL without the query", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    const id = await send(world, campaign.campaign_id, {
      client_reference: "order-1",
      webhook_url: "https://hooks.example.com/in?token=s3cret#frag",
    });
    await world.request("POST", `/sandbox/messages/${id}/report`, {
      body: { status: "delivered" },
    });
    const read = await world.call("GET", ONE, `/v1/messages/${id}`);
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      message_id: id,
      campaign_id: campaign.campaign_id,
      status: "delivered",
      client_reference: "order-1",
      webhook_url: "https://hooks.example.com/in",
      recipient: { phone_number: "+14155550100" },
    });
    expect((read.json.events as Array<{ topic: string }>).map((e) => e.topic)).toEqual([
      "message.sent",
      "message.delivered",
    ]);
    expect(read.body).not.toContain("s3cret");
  });

  it("GET /v1/messages filters, combines filters, and pages newest first", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    const other = await world.campaign({ name: "Other" });
    const a = await send(world, campaign.campaign_id, { client_reference: "order-1" });
    const b = await send(world, other.campaign_id, { client_reference: "order-1" });
    const c = await send(world, campaign.campaign_id, {
      client_reference: "order-2",
      recipient: { type: "phone_number", value: "+1 415 555 0101" },
    });
    const list = async (query: string) => {
      const answer = await world.call("GET", "/v1/messages", `/v1/messages${query}`);
      expect(answer.status, query).toBe(200);
      return (answer.json.data as Array<{ message_id: string }>).map((m) => m.message_id);
    };
    expect(await list("")).toEqual([c, b, a]);
    expect(await list("?client_reference=order-1")).toEqual([b, a]);
    expect(await list(`?campaign_id=${campaign.campaign_id}`)).toEqual([c, a]);
    expect(await list(`?client_reference=order-1&campaign_id=${other.campaign_id}`)).toEqual([b]);
    // Phone filters normalize like every phone input.
    expect(await list("?phone_number=%2B1%20415-555-0101")).toEqual([c]);
    expect(await list("?status=sent")).toEqual([c, b, a]);
    expect(await list("?status=failed")).toEqual([]);
    const aTime = (await world.request("GET", `/v1/messages/${a}`)).json.created_at;
    expect(await list(`?created_after=${aTime}`)).toEqual([c, b]);
    expect(await list(`?created_before=${aTime}`)).toEqual([]);
    const page = await world.call("GET", "/v1/messages", "/v1/messages?limit=2");
    const meta = page.json.meta as { has_more: boolean; next_cursor: string };
    expect(meta.has_more).toBe(true);
    expect(await list(`?limit=2&cursor=${meta.next_cursor}`)).toEqual([a]);
    const data = page.json.data as Array<Record<string, unknown>>;
    expect(data[0]?.events).toBeUndefined();
  });

  it("bad filter values and unknown parameters are 400 naming the parameter", async () => {
    const world = await specWorld();
    for (const [query, path] of [
      ["status=lost", "status"],
      ["campaign_id=prf_1", "campaign_id"],
      ["phone_number=12", "phone_number"],
      ["client_reference=", "client_reference"],
      [`client_reference=${"x".repeat(256)}`, "client_reference"],
      ["created_after=yesterday", "created_after"],
      ["created_before=2026-01-15", "created_before"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["sort=asc", "sort"],
      ["status=sent&status=failed", "status"],
    ]) {
      const answer = await world.call("GET", "/v1/messages", `/v1/messages?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.json.errors, query).toEqual([expect.objectContaining({ path })]);
    }
    const cursor = await world.call("GET", "/v1/messages", "/v1/messages?cursor=bm90LWEtbnVtYmVy");
    expect(cursor.json).toMatchObject({ status: 400, code: "invalid_cursor" });
    const query = await world.call(
      "GET",
      ONE,
      "/v1/messages/0190a000-0000-7000-8000-000000000000?x=1",
    );
    expect(query.status).toBe(400);
  });

  it("another organization's, unknown and malformed ids are 404", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    const id = await send(world, campaign.campaign_id);
    const stranger = await world.tenant();
    for (const target of [id, "0190a000-0000-7000-8000-000000000000", "x"]) {
      const answer = await world.call("GET", ONE, `/v1/messages/${target}`, {
        token: stranger.token,
      });
      expect(answer.status, target).toBe(404);
      expect(answer.json.code).toBe("message_not_found");
    }
    const theirs = await world.call("GET", "/v1/messages", "/v1/messages", {
      token: stranger.token,
    });
    expect(theirs.json.data).toEqual([]);
  });

  it("needs messages:read; messages:send alone does not read", async () => {
    const world = await specWorld();
    const sender = await world.tenant(["messages:send"]);
    for (const url of ["/v1/messages", "/v1/messages/0190a000-0000-7000-8000-000000000000"]) {
      const answer = await world.request("GET", url, { token: sender.token });
      expect(answer.status).toBe(403);
      expect(answer.json.code).toBe("missing_scope");
    }
    const reader = await world.tenant(["messages:read"]);
    expect((await world.request("GET", "/v1/messages", { token: reader.token })).status).toBe(200);
  });
});
