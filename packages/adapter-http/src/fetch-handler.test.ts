import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createFetchHandler } from "./fetch-handler.js";
import { createRequestListener } from "./request-listener.js";
import { httpWorld } from "./testing/http-world.js";

const BASE = "http://shop.test";
const MAX = 1024;

async function setup() {
  const world = await httpWorld({ maxBodyBytes: MAX });
  const fetchApi = createFetchHandler(world.app, { prefix: "/messaging" });
  const auth = { authorization: `Bearer ${world.main.token}` };
  return { world, fetchApi, auth };
}

/** A body streamed in `chunks` chunks of `size` bytes, counting how many were pulled. */
function streamed(chunks: number, size: number, fill = "a") {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) {
        controller.close();
        return;
      }
      pulled += 1;
      controller.enqueue(new TextEncoder().encode(fill.repeat(size)));
    },
  });
  return { stream, pulled: () => pulled };
}

const post = (
  url: string,
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string>,
) => new Request(`${BASE}${url}`, { method: "POST", body, headers, duplex: "half" } as RequestInit);

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** The same app behind the node:http listener, answering one raw request. */
async function viaNodeListener(
  world: Awaited<ReturnType<typeof httpWorld>>,
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: readonly string[],
): Promise<number> {
  const server = createServer(createRequestListener(world.app, { prefix: "/messaging" }));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: "127.0.0.1", method, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe("createFetchHandler", () => {
  it("serves the API under its prefix: create, read, HEAD, delete (204 without a body)", async () => {
    const { fetchApi, auth } = await setup();
    const created = await fetchApi(
      post("/messaging/v1/profiles", JSON.stringify({ phone_number: "+14155550101" }), {
        ...auth,
        "content-type": "application/json",
      }),
    );
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toBe("application/json");
    const profile = (await created.json()) as { public_id: string };
    const url = `${BASE}/messaging/v1/profiles/${profile.public_id}`;
    const read = await fetchApi(new Request(url, { headers: auth }));
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ phone_number: "+14155550101" });
    const head = await fetchApi(new Request(url, { method: "HEAD", headers: auth }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const deleted = await fetchApi(new Request(url, { method: "DELETE", headers: auth }));
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
  });

  it("answers 404 problem+json outside its prefix, and the public endpoints inside it", async () => {
    const { fetchApi } = await setup();
    const outside = await fetchApi(new Request(`${BASE}/shop/cart`));
    expect(outside.status).toBe(404);
    expect(outside.headers.get("content-type")).toBe("application/problem+json");
    expect(((await outside.json()) as { code: string }).code).toBe("route_not_found");
    expect((await fetchApi(new Request(`${BASE}/messaging/healthz`))).status).toBe(200);
    const openapi = await fetchApi(new Request(`${BASE}/messaging/openapi.json?v=2`));
    expect(openapi.status).toBe(200);
  });

  it("reads a streamed body of unknown length, as node:http does", async () => {
    const { world, fetchApi, auth } = await setup();
    const json = JSON.stringify({ phone_number: "+14155550102", first_name: "Grace" });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(json);
        for (let at = 0; at < bytes.length; at += 7) controller.enqueue(bytes.slice(at, at + 7));
        controller.close();
      },
    });
    const headers = { ...auth, "content-type": "application/json" };
    const answer = await fetchApi(post("/messaging/v1/profiles", stream, headers));
    expect(answer.status).toBe(201);
    const viaNode = await viaNodeListener(world, "POST", "/messaging/v1/profiles", headers, [
      json.replace("0102", "0103").slice(0, 10),
      json.replace("0102", "0103").slice(10),
    ]);
    expect(viaNode).toBe(201);
  });

  it("refuses a streamed body past the limit with 413 and stops pulling it there", async () => {
    const { world, fetchApi, auth } = await setup();
    const body = streamed(1_000, 100);
    const headers = { ...auth, "content-type": "application/json" };
    const answer = await fetchApi(post("/messaging/v1/profiles", body.stream, headers));
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { code: string }).code).toBe("payload_too_large");
    // 1 KiB is 11 chunks of 100 bytes; the stream's read-ahead may pull one more.
    expect(body.pulled()).toBeLessThanOrEqual(12);
    const viaNode = await viaNodeListener(
      world,
      "POST",
      "/messaging/v1/profiles",
      { ...headers, "transfer-encoding": "chunked" },
      Array.from({ length: 20 }, () => "a".repeat(100)),
    );
    expect(viaNode).toBe(413);
  });

  it("refuses a body declared over the limit with 413 before reading any of it", async () => {
    const { world, fetchApi, auth } = await setup();
    const body = streamed(5, 1_000);
    const headers = { ...auth, "content-type": "application/json", "content-length": "5000" };
    const answer = await fetchApi(post("/messaging/v1/profiles", body.stream, headers));
    expect(answer.status).toBe(413);
    expect(body.pulled()).toBeLessThanOrEqual(1);
    const viaNode = await viaNodeListener(world, "POST", "/messaging/v1/profiles", headers, [
      "a".repeat(5000),
    ]);
    expect(viaNode).toBe(413);
  });

  it("never hands a body that broke off to the API", async () => {
    const { world, fetchApi, auth } = await setup();
    const json = JSON.stringify({ phone_number: "+14155550104" });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(json));
        controller.error(new Error("the client went away"));
      },
    });
    const headers = { ...auth, "content-type": "application/json" };
    const answer = await fetchApi(post("/messaging/v1/profiles", stream, headers));
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { code: string }).code).toBe("request_aborted");
    const found = await world.request("GET", "/v1/profiles?phone_number=%2B14155550104");
    expect(found.json.data).toEqual([]);
  });
});
