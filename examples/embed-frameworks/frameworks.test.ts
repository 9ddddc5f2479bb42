import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningHost } from "../embed-node-http/tidings.js";
import { startExpress } from "./express.js";
import { startFastify } from "./fastify.js";
import { startHono } from "./hono.js";

const hosts = { express: startExpress, fastify: startFastify, hono: startHono };

let host: RunningHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

/** Sends `chunks` as a chunked body; `abort` destroys the socket after them instead of ending. */
function rawPost(
  url: string,
  path: string,
  headers: Record<string, string>,
  chunks: readonly string[],
  abort = false,
): Promise<{ status: number; body: string } | "aborted"> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const req = httpRequest({ host: "127.0.0.1", port, method: "POST", path, headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", () => resolve("aborted"));
    for (const chunk of chunks) req.write(chunk);
    if (abort) {
      setTimeout(() => req.destroy(), 50);
    } else {
      req.end();
    }
  });
}

describe.each(Object.entries(hosts))("Tidings mounted in %s under /messaging", (_name, start) => {
  it("serves the host's own routes, JSON bodies included, beside the API", async () => {
    host = await start(0);
    expect(await (await fetch(`${host.url}/`)).text()).toBe("Welcome to the shop.\n");
    const order = await fetch(`${host.url}/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ items: ["tea"] }),
    });
    expect(order.status).toBe(201);
    expect(await order.json()).toEqual({ order: "ord_1", items: ["tea"] });
  });

  it("serves the API: health, create and find a profile, HEAD, its 404s and its OpenAPI", async () => {
    host = await start(0);
    const auth = { authorization: `Bearer ${host.token}`, "content-type": "application/json" };
    expect((await fetch(`${host.url}/messaging/healthz`)).status).toBe(200);
    const created = await fetch(`${host.url}/messaging/v1/profiles`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ phone_number: "+1 415 555 0101", first_name: "Ada" }),
    });
    expect(created.status).toBe(201);
    const profile = (await created.json()) as { public_id: string };
    const found = await fetch(`${host.url}/messaging/v1/profiles?phone_number=%2B14155550101`, {
      headers: auth,
    });
    expect(((await found.json()) as { data: unknown[] }).data).toHaveLength(1);
    const head = await fetch(`${host.url}/messaging/v1/profiles/${profile.public_id}`, {
      method: "HEAD",
      headers: auth,
    });
    expect(head.status).toBe(200);
    const unknown = await fetch(`${host.url}/messaging/v1/nothing`, { headers: auth });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toBe("application/problem+json");
    const document = (await (await fetch(`${host.url}/messaging/openapi.json`)).json()) as {
      servers: Array<{ url: string }>;
    };
    expect(document.servers[0]?.url).toBe("/messaging");
  });

  it("answers a streamed body over 1 MiB with 413, as on node:http, and keeps serving", async () => {
    host = await start(0);
    const headers = {
      authorization: `Bearer ${host.token}`,
      "content-type": "application/json",
      "transfer-encoding": "chunked",
    };
    const chunks = Array.from({ length: 40 }, () => "a".repeat(64 * 1024));
    const answer = await rawPost(host.url, "/messaging/v1/profiles", headers, chunks);
    expect(answer).not.toBe("aborted");
    if (answer === "aborted") return;
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).code).toBe("payload_too_large");
    expect((await fetch(`${host.url}/messaging/healthz`)).status).toBe(200);
  });

  it("never acts on a request whose body was cut off, and keeps serving", async () => {
    host = await start(0);
    const auth = { authorization: `Bearer ${host.token}`, "content-type": "application/json" };
    const partial = JSON.stringify({ phone_number: "+14155550199" }).slice(0, 20);
    const answer = await rawPost(
      host.url,
      "/messaging/v1/profiles",
      { ...auth, "content-length": "200" },
      [partial],
      true,
    );
    expect(answer).toBe("aborted");
    const found = await fetch(`${host.url}/messaging/v1/profiles?phone_number=%2B14155550199`, {
      headers: auth,
    });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { data: unknown[] }).data).toEqual([]);
  });
});
