import { describe, expect, it } from "vitest";
import { specWorld } from "./testing/world-with-spec.js";

const ADA = { phone_number: "+1 415 555 0100", first_name: "Ada", last_name: "Lovelace" };

describe("profiles over HTTP", () => {
  it("POST /v1/profiles answers 201 with the Profile, the phone in E.164", async () => {
    const world = await specWorld();
    const created = await world.call("POST", "/v1/profiles", "/v1/profiles", { body: ADA });
    expect(created.status).toBe(201);
    expect(created.headers["content-type"]).toBe("application/json");
    expect(created.json).toMatchObject({
      phone_number: "+14155550100",
      full_name: "Ada Lovelace",
      viber_marketing_consent: false,
      sms_marketing_consent: false,
      email: null,
      created_at: "2026-01-15T09:00:00.000Z",
    });
  });

  it("a query string on a profile endpoint that takes none is 400 naming it", async () => {
    const world = await specWorld();
    const refused = await world.call("POST", "/v1/profiles", "/v1/profiles?upsert=true", {
      body: ADA,
    });
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toEqual([{ path: "upsert", message: expect.any(String) }]);
    const list = await world.call("GET", "/v1/profiles", "/v1/profiles");
    expect(list.json.data).toEqual([]);
    const id = String((await world.request("POST", "/v1/profiles", { body: ADA })).json.public_id);
    const read = await world.call("GET", "/v1/profiles/{public_id}", `/v1/profiles/${id}?x=1`);
    expect(read.status).toBe(400);
    expect(read.json.errors).toEqual([{ path: "x", message: expect.any(String) }]);
  });

  it("GET /v1/profiles/{public_id} answers the Profile", async () => {
    const world = await specWorld();
    const created = await world.request("POST", "/v1/profiles", { body: ADA });
    const id = String(created.json.public_id);
    const read = await world.call("GET", "/v1/profiles/{public_id}", `/v1/profiles/${id}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual({ ...created.json, suppressed: { viber: false, sms: false } });
  });

  it("PATCH answers 200 with the updated Profile; omitted fields keep their values", async () => {
    const world = await specWorld();
    const id = String((await world.request("POST", "/v1/profiles", { body: ADA })).json.public_id);
    world.clock.advance(1000);
    const patched = await world.call("PATCH", "/v1/profiles/{public_id}", `/v1/profiles/${id}`, {
      body: { email: "ada@example.com", sms_marketing_consent: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      public_id: id,
      first_name: "Ada",
      email: "ada@example.com",
      sms_marketing_consent: true,
      updated_at: "2026-01-15T09:00:01.000Z",
    });
  });

  it("DELETE answers 204 with no body, and the profile is then 404", async () => {
    const world = await specWorld();
    const id = String((await world.request("POST", "/v1/profiles", { body: ADA })).json.public_id);
    const deleted = await world.call("DELETE", "/v1/profiles/{public_id}", `/v1/profiles/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    const gone = await world.call("GET", "/v1/profiles/{public_id}", `/v1/profiles/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.json.code).toBe("profile_not_found");
  });

  it("GET /v1/profiles pages with limit and cursor, and filters by an URL-encoded phone", async () => {
    const world = await specWorld();
    for (const n of [0, 1, 2]) {
      await world.request("POST", "/v1/profiles", { body: { phone_number: `+1415555010${n}` } });
    }
    const first = await world.call("GET", "/v1/profiles", "/v1/profiles?limit=2");
    expect(first.status).toBe(200);
    expect((first.json.data as unknown[]).length).toBe(2);
    const meta = first.json.meta as { has_more: boolean; next_cursor: string };
    expect(meta.has_more).toBe(true);
    const second = await world.call(
      "GET",
      "/v1/profiles",
      `/v1/profiles?limit=2&cursor=${encodeURIComponent(meta.next_cursor)}`,
    );
    expect(second.json.meta).toEqual({ has_more: false, next_cursor: null });
    const byPhone = await world.call(
      "GET",
      "/v1/profiles",
      "/v1/profiles?phone_number=%2B14155550101",
    );
    expect(
      (byPhone.json.data as Array<{ phone_number: string }>).map((p) => p.phone_number),
    ).toEqual(["+14155550101"]);
  });

  it("both filters at once is 400 naming the rule", async () => {
    const world = await specWorld();
    const both = await world.call(
      "GET",
      "/v1/profiles",
      "/v1/profiles?phone_number=%2B14155550100&email=a%40b.co",
    );
    expect(both.status).toBe(400);
    expect(both.headers["content-type"]).toBe("application/problem+json");
    expect(both.json.errors).toEqual([
      { path: "email", message: expect.stringContaining("mutually exclusive") },
    ]);
  });

  it("a limit outside 1–100, a repeated parameter, or a bad cursor is 400", async () => {
    const world = await specWorld();
    const limit = await world.call("GET", "/v1/profiles", "/v1/profiles?limit=101");
    expect(limit.status).toBe(400);
    expect(limit.json.errors).toEqual([{ path: "limit", message: expect.any(String) }]);
    const twice = await world.call("GET", "/v1/profiles", "/v1/profiles?limit=1&limit=2");
    expect(twice.json.errors).toEqual([{ path: "limit", message: "must be given once." }]);
    const cursor = await world.call("GET", "/v1/profiles", "/v1/profiles?cursor=%%%");
    expect(cursor.status).toBe(400);
    expect(cursor.json.code).toBe("invalid_cursor");
  });

  it("an invalid body is 400 listing every issue with its path", async () => {
    const world = await specWorld();
    const invalid = await world.call("POST", "/v1/profiles", "/v1/profiles", {
      body: { phone_number: "555", first_name: "A", nickname: "x" },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.json.code).toBe("validation_failed");
    const paths = (invalid.json.errors as Array<{ path: string }>).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(["phone_number", "first_name", "nickname"]));
  });

  it("a JSON body that is not an object is 400 at the path `body`", async () => {
    const world = await specWorld();
    for (const body of [[1, 2], "text", 42, null]) {
      const answer = await world.call("POST", "/v1/profiles", "/v1/profiles", {
        raw: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
      expect(answer.status).toBe(400);
      expect((answer.json.errors as Array<{ path: string }>)[0]?.path).toBe("body");
    }
  });

  it("a duplicate phone number is 409 phone_number_taken", async () => {
    const world = await specWorld();
    await world.request("POST", "/v1/profiles", { body: ADA });
    const again = await world.call("POST", "/v1/profiles", "/v1/profiles", { body: ADA });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("phone_number_taken");
  });

  it("PATCH of a Shopify profile is 409 profile_protected (docs/api.md)", async () => {
    const world = await specWorld();
    const id = world.ids.prefixed("prf");
    const at = "2026-01-01T00:00:00.000Z";
    await world.storage.profiles.insert({
      id,
      organizationId: world.main.organizationId,
      phoneNumber: "+14155550199",
      email: null,
      firstName: "Shop",
      lastName: null,
      viberMarketingConsent: false,
      smsMarketingConsent: false,
      attributes: {},
      source: "shopify",
      status: "active",
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
      timeZone: null,
    });
    const patched = await world.call("PATCH", "/v1/profiles/{public_id}", `/v1/profiles/${id}`, {
      body: { first_name: "Augusta" },
    });
    expect(patched.status).toBe(409);
    expect(patched.json.code).toBe("profile_protected");
  });

  it("another organization's profile is 404 on read, update and delete", async () => {
    const world = await specWorld();
    const other = await world.tenant();
    const id = String(
      (await world.request("POST", "/v1/profiles", { body: ADA, token: other.token })).json
        .public_id,
    );
    const url = `/v1/profiles/${id}`;
    const template = "/v1/profiles/{public_id}";
    expect((await world.call("GET", template, url)).status).toBe(404);
    expect((await world.call("PATCH", template, url, { body: { first_name: "Eve" } })).status).toBe(
      404,
    );
    expect((await world.call("DELETE", template, url)).status).toBe(404);
    const stillThere = await world.request("GET", url, { token: other.token });
    expect(stillThere.json.first_name).toBe("Ada");
  });

  it("Idempotency-Key on POST /v1/profiles replays the 201 without creating twice", async () => {
    const world = await specWorld();
    const headers = { "idempotency-key": "create-ada-1" };
    const first = await world.call("POST", "/v1/profiles", "/v1/profiles", { body: ADA, headers });
    const again = await world.call("POST", "/v1/profiles", "/v1/profiles", { body: ADA, headers });
    expect(again.status).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    const list = await world.request("GET", "/v1/profiles");
    expect((list.json.data as unknown[]).length).toBe(1);
    const other = await world.call("POST", "/v1/profiles", "/v1/profiles", {
      body: { ...ADA, first_name: "Augusta" },
      headers,
    });
    expect(other.status).toBe(422);
    expect(other.json.code).toBe("idempotency_key_reused");
  });
});
