import { Agent, createServer as createNodeServer, request } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { cleanupsEach, waitUntil, within } from "@tidings/core/testing";
import { describe, expect, it } from "vitest";
import { createRequestListener } from "./request-listener.js";
import { createServer, type ServerOptions, type TidingsHttpServer } from "./server.js";
import { httpWorld } from "./testing/http-world.js";
import type { HttpApp, HttpResponse } from "./types.js";

const cleanups = cleanupsEach();

async function serve(
  app: HttpApp,
  options: ServerOptions = {},
): Promise<{ server: TidingsHttpServer; url: string }> {
  const server = createServer(app, options);
  const { url } = await server.listen(0);
  cleanups.push(() => server.close());
  return { server, url };
}

/** A raw request: status, headers and body of the answer, over node:http. */
function raw(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string | number>;
    body?: Buffer;
    agent?: Agent;
  },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? "GET",
      headers: options.headers,
      agent: options.agent,
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on("error", reject);
    if (options.body) req.write(options.body);
    req.end();
  });
}

/** An app whose answers wait for `release()`, to hold a request in flight. */
function heldApp() {
  let release: () => void = () => undefined;
  let entered: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const answer: HttpResponse = {
    status: 200,
    headers: { "content-type": "text/plain" },
    body: "done",
  };
  const app: HttpApp = {
    maxBodyBytes: 1024,
    async handle() {
      entered();
      await gate;
      return answer;
    },
    refuse: () => ({ status: 413, headers: {}, body: "" }),
  };
  return { app, release, inside };
}

/**
 * The held request in flight got its whole answer with `connection: close`, and the server
 * stopped listening once `close()` settled.
 */
async function expectGracefulEnd(
  server: TidingsHttpServer,
  inFlight: ReturnType<typeof raw>,
  closed: Promise<void>,
): Promise<void> {
  const answer = await inFlight;
  expect(answer.status).toBe(200);
  expect(answer.body).toBe("done");
  expect(answer.headers.connection).toBe("close");
  await closed;
  expect(server.server.listening).toBe(false);
}

/** How many sockets the server holds open. */
function connections(server: TidingsHttpServer): Promise<number> {
  return new Promise((resolve, reject) =>
    server.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

/** A raw TCP connection to `url`, with everything it receives and when it closed. */
async function rawSocket(url: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  cleanups.push(async () => {
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("latin1");
  });
  socket.on("error", () => undefined);
  const closed = within(
    10_000,
    "the server to close the socket",
    new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now()))),
  );
  return { socket, closed, received: () => received };
}

/**
 * Writes `start` on a raw socket, then `chunk` every 50 ms, never finishing the request, until
 * the server closes it; answers what was received, parsed, and when it closed.
 */
async function trickleUntilClosed(url: string, start: string, chunk: string) {
  const client = await rawSocket(url);
  const started = Date.now();
  client.socket.write(start);
  const trickle = setInterval(() => client.socket.write(chunk), 50);
  cleanups.push(async () => clearInterval(trickle));
  const closedAt = await client.closed;
  clearInterval(trickle);
  expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  return { answer: parseRaw(client.received()), after: closedAt - started };
}

/** A raw answer split into its status, lowercased headers and JSON body. */
function parseRaw(text: string) {
  const [head = "", body = ""] = text.split("\r\n\r\n", 2);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(" ")[1]), headers, json: JSON.parse(body) };
}

/** Sends `bytes` on a raw socket and resolves with the answer once the server has closed. */
async function sendRaw(url: string, bytes: string) {
  const client = await rawSocket(url);
  client.socket.write(bytes);
  await client.closed;
  return parseRaw(client.received());
}

describe("requests node:http refuses itself", () => {
  it.each([
    ["a request line that is not one", "GARBAGE\r\n\r\n"],
    ["a header name with a space", "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n"],
    [
      "Content-Length with Transfer-Encoding",
      "POST /v1/profiles HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ],
    [
      "two Content-Lengths",
      "POST /v1/profiles HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    ],
  ])("%s: 400 malformed_request as problem+json, then the connection closes", async (_, bytes) => {
    const world = await httpWorld();
    const { url } = await serve(world.app);
    const answer = await sendRaw(url, bytes);
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toBe("application/problem+json");
    expect(answer.headers.connection).toBe("close");
    expect(answer.json).toMatchObject({
      status: 400,
      code: "malformed_request",
      request_id: answer.headers["x-request-id"],
      detail: expect.stringMatching(/^The request is not valid HTTP\/1\.1 \(.+\)/),
    });
  });

  it("headers larger than node:http allows: 431 headers_too_large", async () => {
    const world = await httpWorld();
    const { url } = await serve(world.app);
    const answer = await sendRaw(
      url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expect(answer.headers.connection).toBe("close");
    expect(answer.json).toMatchObject({ status: 431, code: "headers_too_large" });
  });

  it("a well-formed request on the same server is still answered as usual", async () => {
    const world = await httpWorld();
    const { url } = await serve(world.app);
    await sendRaw(url, "GARBAGE\r\n\r\n");
    expect((await raw(`${url}/healthz`, {})).status).toBe(200);
  });
});

describe("createRequestListener", () => {
  it("mounts under a prefix in any node:http server, and answers 404 outside it", async () => {
    const world = await httpWorld();
    const listener = createRequestListener(world.app, { prefix: "/messaging/" });
    const host = createNodeServer((req, res) => listener(req, res));
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => host.close(() => resolve())));
    const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    expect((await fetch(`${base}/messaging/healthz`)).status).toBe(200);
    const listed = await fetch(`${base}/messaging/v1/profiles?limit=5`, {
      headers: { authorization: `Bearer ${world.main.token}` },
    });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ data: [], meta: { has_more: false, next_cursor: null } });
    const outside = await fetch(`${base}/healthz`);
    expect(outside.status).toBe(404);
    expect(outside.headers.get("x-request-id")).toBeTruthy();
  });

  it("refuses a body declared over the limit with 413 without reading it", async () => {
    const world = await httpWorld();
    const { url } = await serve(world.app);
    const answer = await raw(`${url}/v1/profiles`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": 5 * 1024 * 1024 },
      body: Buffer.alloc(64 * 1024, 0x20),
    });
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe("close");
    expect(JSON.parse(answer.body).code).toBe("payload_too_large");
  });

  it("stops a chunked body as soon as it passes the limit", async () => {
    const world = await httpWorld();
    const { url } = await serve(world.app);
    const answer = await raw(`${url}/v1/profiles`, {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      body: Buffer.alloc(1024 * 1024 + 10, 0x20),
    });
    expect(answer.status).toBe(413);
  });
});

describe("createServer", () => {
  it("answers HEAD as GET without the body, with GET's Content-Length", async () => {
    const world = await httpWorld();
    const { url } = await serve(world.app);
    const authorization = `Bearer ${world.main.token}`;
    const created = await world.request("POST", "/v1/profiles", {
      body: { phone_number: "+14155550100" },
    });
    const paths = ["/healthz", `/v1/profiles/${created.json.public_id}`, "/v1/profiles/prf_x"];
    for (const path of paths) {
      const headers = { authorization, "x-request-id": "same" };
      const get = await raw(`${url}${path}`, { headers });
      const head = await raw(`${url}${path}`, { method: "HEAD", headers });
      expect(head.status, path).toBe(get.status);
      expect(get.headers["content-length"]).toBe(String(Buffer.byteLength(get.body)));
      const { date: _getDate, ...getHeaders } = get.headers;
      const { date: _headDate, ...headHeaders } = head.headers;
      expect(headHeaders, path).toEqual(getHeaders);
      expect(head.body).toBe("");
    }
    const notAllowed = await raw(`${url}/v1/messages/send`, {
      method: "HEAD",
      headers: { authorization },
    });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.allow).toBe("POST");
  });

  it("closes gracefully: no new connections, the request in flight finishes, idle sockets close", async () => {
    const held = heldApp();
    const { server, url } = await serve(held.app);
    const agent = new Agent({ keepAlive: true });
    cleanups.push(async () => agent.destroy());
    const inFlight = raw(`${url}/slow`, { agent });
    await held.inside;
    const closed = server.close();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    held.release();
    await expectGracefulEnd(server, inFlight, closed);
  });

  // A send whose client hung up still stores and hands off its message: `serve` closes the
  // storage after `close()`, so closing must wait for the handling, not only for the socket.
  it("close() waits for a request whose client hung up until its handling ends", async () => {
    const held = heldApp();
    const { server, url } = await serve(held.app);
    const client = await rawSocket(url);
    client.socket.write("GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await held.inside;
    client.socket.destroy();
    await client.closed;
    await waitUntil(
      "the server to see the socket closed",
      10_000,
      async () => (await connections(server)) === 0,
    );
    let settled = false;
    const closed = server.close().then(() => {
      settled = true;
    });
    // The socket is gone; only the handling is left. Give a wrong close time to settle.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    held.release();
    await within(10_000, "close() after the handling ended", closed);
    expect(server.server.listening).toBe(false);
  });

  it("defaults to 10 s for headers, 30 s for the request and 5 s keep-alive", async () => {
    const world = await httpWorld();
    const { server, url } = await serve(world.app);
    expect(server.server.headersTimeout).toBe(10_000);
    expect(server.server.requestTimeout).toBe(30_000);
    expect(server.server.keepAliveTimeout).toBe(5_000);
    expect((await raw(`${url}/healthz`, {})).headers["keep-alive"]).toBe("timeout=5");
  });

  it("cuts off a client that sends its headers too slowly: 408, then the socket closes", async () => {
    const world = await httpWorld();
    // A request timeout far beyond the wait for the close shows it is the headers' that cut.
    const { url } = await serve(world.app, { headersTimeout: 200, requestTimeout: 120_000 });
    // Keep trickling header lines, never finishing them, well past the headers timeout.
    const { answer, after } = await trickleUntilClosed(
      url,
      "GET /healthz HTTP/1.1\r\nHost: localhost\r\n",
      "X-Slow: 1\r\n",
    );
    expect(answer).toMatchObject({
      headers: { connection: "close", "content-type": "application/problem+json" },
      json: { status: 408, code: "request_timeout" },
    });
    expect(after).toBeGreaterThanOrEqual(190);
  });

  it("cuts off a client that sends its body too slowly, after the request timeout", async () => {
    const world = await httpWorld();
    const { url } = await serve(world.app, { headersTimeout: 200, requestTimeout: 400 });
    const { answer, after } = await trickleUntilClosed(
      url,
      "POST /v1/profiles HTTP/1.1\r\nHost: localhost\r\n" +
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
      " ",
    );
    expect(answer).toMatchObject({
      headers: { connection: "close" },
      json: { status: 408, code: "request_timeout" },
    });
    expect(after).toBeGreaterThanOrEqual(390);
  });

  it("closes an idle keep-alive connection after the keep-alive timeout", async () => {
    const world = await httpWorld();
    const { url } = await serve(world.app, { keepAliveTimeout: 300 });
    const client = await rawSocket(url);
    client.socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await waitUntil("the health answer", 10_000, () =>
      client.received().endsWith('{"status":"ok"}'),
    );
    const answeredAt = Date.now();
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.received()).not.toMatch(/connection: close/i);
    const closedAt = await client.closed;
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(250);
  });

  it("with short timeouts, a slow handler still finishes and close() is still graceful", async () => {
    const held = heldApp();
    const { server, url } = await serve(held.app, {
      headersTimeout: 100,
      requestTimeout: 200,
      keepAliveTimeout: 100,
    });
    const agent = new Agent({ keepAlive: true });
    cleanups.push(async () => agent.destroy());
    const inFlight = raw(`${url}/slow`, { agent });
    await held.inside;
    // Past every timeout: they bound receiving the request, not the time to answer it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const closed = server.close();
    held.release();
    await expectGracefulEnd(server, inFlight, closed);
  });

  // The keep-alive timeout is 10 minutes, far past this test's own 5 s limit: close() must cut
  // the idle socket instead of waiting for it.
  it("close() does not wait for idle keep-alive connections", { timeout: 5_000 }, async () => {
    const world = await httpWorld();
    const { server, url } = await serve(world.app, {
      keepAliveTimeout: 600_000,
      shutdownTimeoutMs: 600_000,
    });
    const agent = new Agent({ keepAlive: true });
    cleanups.push(async () => agent.destroy());
    expect((await raw(`${url}/healthz`, { agent })).status).toBe(200);
    await server.close();
    expect(server.server.listening).toBe(false);
  });
});
