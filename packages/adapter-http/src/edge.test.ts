import {
  createApiKey,
  revokeApiKey,
  StorageBusyError,
  StorageUnavailableError,
} from "@tidings/core";
import { describe, expect, it } from "vitest";
import { otpBody } from "./testing/http-world.js";
import { specWorld } from "./testing/world-with-spec.js";

const LIST = "/v1/profiles";

describe("authentication", () => {
  it("missing, malformed, unknown, wrong-secret and revoked keys get the same 401", async () => {
    const world = await specWorld();
    const { key } = world.main;
    const revoked = await world.tenant();
    await revokeApiKey(world.deps, revoked.key.key_id);
    const tokens: Array<string | null> = [
      null,
      "garbage",
      `${key.key_id}`,
      `key_00000000000000000000000000:${key.key_secret}`,
      `${key.key_id}:wrong-secret`,
      revoked.token,
    ];
    const answers = [];
    for (const token of tokens) answers.push(await world.call("GET", LIST, LIST, { token }));
    answers.push(
      await world.call("GET", LIST, LIST, {
        headers: { authorization: `Basic ${key.token}` },
        token: null,
      }),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.headers["www-authenticate"]).toContain("Bearer");
      const { request_id: _id, ...rest } = answer.json;
      expect(rest).toEqual({
        type: "https://tidings.dev/problems/unauthorized",
        title: "Unauthorized",
        status: 401,
        detail: "The API key is missing, invalid or expired.",
        code: "unauthorized",
      });
    }
  });

  it("the Bearer scheme is matched in any case (RFC 9110)", async () => {
    const world = await specWorld();
    for (const scheme of ["bearer", "BEARER", "Bearer"]) {
      const answer = await world.call("GET", LIST, LIST, {
        headers: { authorization: `${scheme} ${world.main.token}` },
        token: null,
      });
      expect(answer.status, scheme).toBe(200);
    }
  });

  it("an expired key is 401", async () => {
    const world = await specWorld();
    const key = (
      await createApiKey(world.deps, {
        organization_id: world.main.organizationId,
        scopes: ["profiles:read"],
        expires_at: "2026-01-15T10:00:00.000Z",
      })
    )._unsafeUnwrap();
    expect((await world.call("GET", LIST, LIST, { token: key.token })).status).toBe(200);
    world.clock.advance(60 * 60 * 1000);
    expect((await world.call("GET", LIST, LIST, { token: key.token })).status).toBe(401);
  });

  it("authentication runs before routing: an unknown /v1 path without a key is 401", async () => {
    const world = await specWorld();
    expect((await world.request("GET", "/v1/secret-admin", { token: null })).status).toBe(401);
    const known = await world.call("GET", "/v1/nowhere", "/v1/nowhere");
    expect(known.status).toBe(404);
    expect(known.json.code).toBe("route_not_found");
  });
});

describe("the HTTP edge", () => {
  it("a wrong method is 405 with Allow", async () => {
    const world = await specWorld();
    const answer = await world.call("PUT", "/v1/profiles/{public_id}", "/v1/profiles/prf_x");
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe("GET, HEAD, PATCH, DELETE");
  });

  it("a body without a JSON content type is 415; malformed JSON is 400 malformed_json", async () => {
    const world = await specWorld();
    const text = await world.call("POST", LIST, LIST, {
      raw: "phone_number=+14155550100",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(text.status).toBe(415);
    expect(text.json.code).toBe("unsupported_media_type");
    const broken = await world.call("POST", LIST, LIST, {
      raw: '{"phone_number": ',
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(broken.status).toBe(400);
    expect(broken.json.code).toBe("malformed_json");
  });

  it("a body over 1 MiB is 413 before anything else", async () => {
    const world = await specWorld();
    const answer = await world.call("POST", LIST, LIST, {
      raw: `{"a":"${"x".repeat(1024 * 1024)}"}`,
      headers: { "content-type": "application/json" },
      token: null,
    });
    expect(answer.status).toBe(413);
    expect(answer.json.code).toBe("payload_too_large");
  });

  it("a NUL character in a body string, a key or the URL is 400 naming where (PostgreSQL cannot store it)", async () => {
    const world = await specWorld();
    const inValue = await world.call("POST", LIST, LIST, {
      raw: '{"phone_number":"+14155550100","first_name":"An\\u0000n"}',
      headers: { "content-type": "application/json" },
    });
    expect(inValue.status).toBe(400);
    expect(inValue.json.errors).toEqual([
      { path: "first_name", message: expect.stringMatching(/NUL/) },
    ]);
    const inKey = await world.call("POST", LIST, LIST, {
      raw: '{"phone_number":"+14155550100","attributes":{"a\\u0000":1}}',
      headers: { "content-type": "application/json" },
    });
    expect(inKey.json.errors).toEqual([
      { path: "attributes.a\u0000", message: expect.any(String) },
    ]);
    const inUrl = await world.call("GET", "/v1/profiles/{public_id}", "/v1/profiles/prf_%00");
    expect(inUrl.status).toBe(400);
    const escapedBackslash = await world.call("POST", LIST, LIST, {
      raw: '{"phone_number":"+14155550100","first_name":"A\\\\u0000"}',
      headers: { "content-type": "application/json" },
    });
    expect(escapedBackslash.status).toBe(201);
  });

  it("deeply nested JSON is a 400, not a crash", async () => {
    const world = await specWorld();
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const answer = await world.call("POST", LIST, LIST, {
      raw: `{"attributes":{"a":${deep}}}`,
      headers: { "content-type": "application/json", "idempotency-key": "deep" },
    });
    expect(answer.status).toBe(400);
  });

  it("an unexpected failure is 500 with the request id, nothing internal, logged with its stack", async () => {
    const world = await specWorld();
    world.storage.failNext("profiles.list", new Error("disk on fire at /var/db"));
    const answer = await world.call("GET", LIST, LIST, { headers: { "x-request-id": "trace-42" } });
    expect(answer.status).toBe(500);
    expect(answer.json.request_id).toBe("trace-42");
    expect(answer.body).not.toContain("disk");
    expect(world.logged).toHaveLength(1);
    expect(world.logged[0]?.fields?.request_id).toBe("trace-42");
    expect(String(world.logged[0]?.fields?.stack)).toContain("disk on fire");
  });

  it("storage locked by another process for too long is 503 storage_busy with Retry-After", async () => {
    const world = await specWorld();
    world.storage.failNext("profiles.insert", new StorageBusyError(5000));
    const answer = await world.call("POST", LIST, LIST, {
      body: { phone_number: "+14155552671" },
      headers: { "x-request-id": "busy-1" },
    });
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBe("1");
    expect(answer.json).toMatchObject({ code: "storage_busy", request_id: "busy-1" });
    // Nothing was written: the same request succeeds once the lock is free.
    const again = await world.call("POST", LIST, LIST, { body: { phone_number: "+14155552671" } });
    expect(again.status).toBe(201);
  });

  it("storage out of reach is 503 storage_unavailable with Retry-After, saying whether a retry is safe", async () => {
    const world = await specWorld();
    world.storage.failNext(
      "profiles.insert",
      new StorageUnavailableError("unreachable", "unchanged"),
    );
    const refused = await world.call("POST", LIST, LIST, {
      body: { phone_number: "+14155552671" },
      headers: { "x-request-id": "down-1" },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.json).toMatchObject({ code: "storage_unavailable", request_id: "down-1" });
    expect(String(refused.json.detail)).toMatch(/nothing was changed/);
    expect(refused.json.changed).toBe(false);

    world.storage.failNext(
      "profiles.insert",
      new StorageUnavailableError("unreachable", "unknown"),
    );
    const cut = await world.call("POST", LIST, LIST, { body: { phone_number: "+14155552672" } });
    expect(cut.status).toBe(503);
    expect(String(cut.json.detail)).toMatch(/only with the same Idempotency-Key/);
    expect(cut.json.changed).toBeNull();

    // A read changed nothing, whatever the connection did.
    world.storage.failNext("profiles.list", new StorageUnavailableError("disk_full", "unknown"));
    const read = await world.call("GET", LIST, LIST);
    expect(read.status).toBe(503);
    expect(String(read.json.detail)).toMatch(/nothing was changed/);
  });

  it("X-Request-Id is echoed when sane, else a UUID v7 is made", async () => {
    const world = await specWorld();
    const echoed = await world.call("GET", "/healthz", "/healthz", {
      headers: { "x-request-id": "abc-123" },
    });
    expect(echoed.headers["x-request-id"]).toBe("abc-123");
    for (const bad of ["has space", "x".repeat(129), "tab\there"]) {
      const made = await world.call("GET", "/healthz", "/healthz", {
        headers: { "x-request-id": bad },
      });
      expect(made.headers["x-request-id"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    }
  });

  it("/healthz, /readyz and /openapi.json need no key; /readyz is 503 when storage fails", async () => {
    const world = await specWorld();
    expect((await world.call("GET", "/healthz", "/healthz", { token: null })).json).toEqual({
      status: "ok",
    });
    expect((await world.call("GET", "/readyz", "/readyz", { token: null })).status).toBe(200);
    world.deps.storage = { ...world.storage, ping: () => Promise.reject(new Error("down")) };
    const down = await world.call("GET", "/readyz", "/readyz", { token: null });
    expect(down.status).toBe(503);
    expect(down.json.code).toBe("not_ready");
    expect(
      (await world.call("GET", "/openapi.json", "/openapi.json", { token: null })).status,
    ).toBe(200);
    const unknown = await world.call("GET", "/nope", "/nope", { token: null });
    expect(unknown.status).toBe(404);
  });
});

describe("methods", () => {
  it("are matched in any case: handle() uppercases them", async () => {
    const world = await specWorld();
    expect((await world.call("get", "/healthz", "/healthz")).status).toBe(200);
    expect((await world.call("get", LIST, LIST)).status).toBe(200);
    const created = await world.call("post", LIST, LIST, {
      body: { phone_number: "+14155550100" },
    });
    expect(created.status).toBe(201);
    const wrong = await world.call("put", LIST, LIST);
    expect(wrong.status).toBe(405);
    expect(wrong.json.detail).toContain('"PUT"');
  });

  it("HEAD answers what GET answers, without the body: same status and headers, GET's Content-Length", async () => {
    const world = await specWorld();
    const created = await world.call("POST", LIST, LIST, {
      body: { phone_number: "+14155550100" },
    });
    const one = "/v1/profiles/{public_id}";
    const cases: Array<[string, string, string | null]> = [
      ["/healthz", "/healthz", null],
      ["/readyz", "/readyz", null],
      ["/openapi.json", "/openapi.json", null],
      [LIST, `${LIST}?limit=5`, world.main.token],
      [one, `/v1/profiles/${created.json.public_id}`, world.main.token],
      [one, "/v1/profiles/prf_00000000000000000000000000", world.main.token],
      [LIST, LIST, null],
      [LIST, `${LIST}?limit=abc`, world.main.token],
      ["/nope", "/nope", null],
    ];
    for (const [template, url, token] of cases) {
      const headers = { "x-request-id": "same-id" };
      const get = await world.call("GET", template, url, { token, headers });
      for (const method of ["HEAD", "head"]) {
        const head = await world.call(method, template, url, { token, headers });
        expect(head.status, `${method} ${url}`).toBe(get.status);
        expect(head.headers, `${method} ${url}`).toEqual(get.headers);
        expect(head.headers["content-length"]).toBe(String(Buffer.byteLength(get.body)));
        expect(head.body).toBe("");
      }
    }
    expect(created.headers["content-length"]).toBe(String(Buffer.byteLength(created.body)));
  });

  it("HEAD is listed in Allow wherever GET is, and is 405 where GET is not", async () => {
    const world = await specWorld();
    const onGet = await world.call("POST", "/healthz", "/healthz", { token: null });
    expect(onGet.headers.allow).toBe("GET, HEAD");
    const list = await world.call("PUT", "/v1/webhooks", "/v1/webhooks");
    expect(list.headers.allow).toBe("POST, GET, HEAD");
    const send = await world.call("HEAD", "/v1/messages/send", "/v1/messages/send");
    expect(send.status).toBe(405);
    expect(send.headers.allow).toBe("POST");
    expect(send.body).toBe("");
  });

  it("a 204 carries no Content-Length", async () => {
    const world = await specWorld();
    const created = await world.call("POST", LIST, LIST, {
      body: { phone_number: "+14155550100" },
    });
    const one = "/v1/profiles/{public_id}";
    const deleted = await world.call("DELETE", one, `/v1/profiles/${created.json.public_id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.headers["content-length"]).toBeUndefined();
  });
});

describe("the sandbox report route", () => {
  it("drives the lifecycle of a message sent with the same key; another key gets 404", async () => {
    const world = await specWorld();
    const campaign = await world.campaign();
    const sent = await world.request("POST", "/v1/messages/send", {
      body: otpBody(campaign.campaign_id),
    });
    const id = String(sent.json.message_id);
    const template = "/sandbox/messages/{message_id}/report";
    const url = `/sandbox/messages/${id}/report`;
    const other = await world.tenant();
    const stranger = await world.call("POST", template, url, {
      body: { status: "delivered" },
      token: other.token,
    });
    expect(stranger.status).toBe(404);
    const delivered = await world.call("POST", template, url, { body: { status: "delivered" } });
    expect(delivered.status).toBe(200);
    expect(delivered.json).toEqual({ message_id: id, applied: true, status: "delivered" });
    const events = await world.storage.raw.events(id);
    expect(events.map((event) => event.topic)).toEqual(["message.sent", "message.delivered"]);
    const invalid = await world.call("POST", template, url, { body: { status: "teleported" } });
    expect(invalid.status).toBe(400);
  });

  it("is absent when the provider is not the sandbox", async () => {
    const world = await specWorld({ sandbox: false });
    const answer = await world.request("POST", "/sandbox/messages/x/report", {
      body: { status: "delivered" },
    });
    expect(answer.status).toBe(404);
    expect(JSON.stringify(world.document)).not.toContain("/sandbox/");
  });
});
