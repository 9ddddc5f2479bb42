import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebhookRequest } from "@tidings/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUrlPolicy } from "./url-policy.js";
import { RESPONSE_BODY_LIMIT, undiciWebhookTransport } from "./webhook-transport.js";

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** The local receiver: each path answers in its own way, and every request is remembered. */
const received: Received[] = [];
let connections = 0;
let server: Server;
let port: number;

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  "/ok": (_req, res) => res.writeHead(204).end(),
  "/fail": (_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end("boom"),
  "/hang": () => undefined, // never answers
  "/reset": (req) => req.socket.resetAndDestroy(),
  "/moved": (_req, res) => res.writeHead(301, { location: "/ok-after-redirect" }).end(),
  "/ok-after-redirect": (_req, res) => res.writeHead(200).end("followed"),
  "/slow": (_req, res) => {
    setTimeout(() => res.writeHead(200, { "x-answer": "late" }).end("slow but fine"), 100);
  },
  "/trickle": (_req, res) => {
    res.writeHead(200);
    res.write("a");
    // The rest of the body never comes within the deadline.
    setTimeout(() => res.end("b"), 5_000).unref();
  },
  "/huge": (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("é".repeat(512 * 1024)); // 1 MiB of two-byte characters
  },
  "/limited": (_req, res) => res.writeHead(429, { "retry-after": "120" }).end(),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const route =
        routes[path] ?? ((_q: IncomingMessage, s: ServerResponse) => s.writeHead(404).end());
      route(req, res);
    });
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const devPolicy = createUrlPolicy({ dev: true });

/** A transport allowed to reach loopback, as in development mode. */
function devTransport() {
  return undiciWebhookTransport({ urlPolicy: devPolicy });
}

const post = (url: string, timeoutMs = 2_000): WebhookRequest => ({
  url,
  headers: {
    "content-type": "application/json",
    "user-agent": "Tidings-Webhooks/1",
    "X-Service-Delivery-Id": "0190a0a0-0000-7000-8000-000000000000",
  },
  body: '{"topic":"message.sent"}',
  timeoutMs,
});

/** Posts once to the local receiver's `path` through a fresh development transport. */
async function postOnce(path: string, timeoutMs?: number) {
  const transport = devTransport();
  try {
    return await transport.post(post(`http://127.0.0.1:${port}${path}`, timeoutMs));
  } finally {
    await transport.close();
  }
}

const hits = (path: string) => received.filter((r) => r.path === path).length;

describe("undiciWebhookTransport against a real local receiver", () => {
  it("posts the body and headers as given and answers the receiver's status", async () => {
    const answer = await postOnce("/ok");
    expect(answer).toMatchObject({ kind: "response", status: 204, body: "" });
    const last = received.at(-1);
    expect(last?.body).toBe('{"topic":"message.sent"}');
    expect(last?.headers["content-type"]).toBe("application/json");
    expect(last?.headers["x-service-delivery-id"]).toBe("0190a0a0-0000-7000-8000-000000000000");
  });

  it("a 500 is a response with its status and body, not an error", async () => {
    expect(await postOnce("/fail")).toMatchObject({
      kind: "response",
      status: 500,
      body: "boom",
      headers: { "content-type": "text/plain" },
    });
  });

  it("a 429 keeps its Retry-After header for the retry schedule", async () => {
    const answer = await postOnce("/limited");
    expect(answer).toMatchObject({
      kind: "response",
      status: 429,
      headers: { "retry-after": "120" },
    });
  });

  it("a receiver that never answers is cut off at the deadline", async () => {
    const answer = await postOnce("/hang", 300);
    expect(answer).toMatchObject({ kind: "error", error: "timeout after 300 ms" });
  });

  it("the deadline covers the body too, not only the headers", async () => {
    const answer = await postOnce("/trickle", 300);
    expect(answer).toMatchObject({ kind: "error", error: "timeout after 300 ms" });
  });

  it("a reset connection is an error naming it", async () => {
    const answer = await postOnce("/reset");
    expect(answer.kind).toBe("error");
    if (answer.kind === "error") expect(answer.error).toMatch(/ECONNRESET|closed/);
  });

  it("a 301 is answered as it is: the redirect is not followed", async () => {
    const before = hits("/ok-after-redirect");
    const answer = await postOnce("/moved");
    expect(answer).toMatchObject({
      kind: "response",
      status: 301,
      headers: { location: "/ok-after-redirect" },
    });
    expect(hits("/ok-after-redirect")).toBe(before);
  });

  it("a slow answer within the deadline is a response", async () => {
    const answer = await postOnce("/slow");
    expect(answer).toMatchObject({ kind: "response", status: 200, body: "slow but fine" });
  });

  it("keeps only the first 2 KiB of a 1 MiB answer, without splitting a character", async () => {
    const answer = await postOnce("/huge");
    expect(answer.kind).toBe("response");
    if (answer.kind !== "response") return;
    expect(answer.status).toBe(200);
    expect(Buffer.byteLength(answer.body)).toBe(RESPONSE_BODY_LIMIT);
    expect(answer.body).toBe("é".repeat(RESPONSE_BODY_LIMIT / 2));
  });

  it("reuses one pooled keep-alive connection for consecutive posts", async () => {
    // One connection per origin, so a new one would mean keep-alive failed.
    const transport = undiciWebhookTransport({ urlPolicy: devPolicy, connections: 1 });
    try {
      await transport.post(post(`http://127.0.0.1:${port}/ok`));
      const before = connections;
      for (let i = 0; i < 3; i++) {
        expect(await transport.post(post(`http://127.0.0.1:${port}/ok`))).toMatchObject({
          status: 204,
        });
      }
      expect(connections).toBe(before);
    } finally {
      await transport.close();
    }
  });

  it("never rejects: a refused port and an invalid URL are errors", async () => {
    const transport = devTransport();
    try {
      const refused = await transport.post(post("http://127.0.0.1:1/"));
      expect(refused).toMatchObject({ kind: "error" });
      if (refused.kind === "error") expect(refused.error).toMatch(/ECONNREFUSED/);
      expect(await transport.post(post("not a url"))).toMatchObject({
        kind: "error",
        error: "refused: the URL is not a valid absolute URL",
      });
      expect(await transport.post(post("ftp://127.0.0.1/"))).toMatchObject({ kind: "error" });
    } finally {
      await transport.close();
    }
  });
});

describe("the SSRF guard at connect time", () => {
  it("refuses a host that resolves to a private address when connecting, sending nothing", async () => {
    const policy = createUrlPolicy({ dev: true, resolve: async () => ["10.0.0.1"] });
    const transport = undiciWebhookTransport({ lookup: policy.guardedLookup });
    try {
      const count = received.length;
      const answer = await transport.post(post(`http://internal.example:${port}/ok`));
      expect(answer).toMatchObject({
        kind: "error",
        error: "refused: address 10.0.0.1 is private",
      });
      expect(received.length).toBe(count);
    } finally {
      await transport.close();
    }
  });

  it("connects through the guard's answer, so a rebinding resolver is caught where it counts", async () => {
    let answer = ["127.0.0.1"];
    const policy = createUrlPolicy({ dev: true, resolve: async () => answer });
    const transport = undiciWebhookTransport({ urlPolicy: policy });
    try {
      // The name is only known to the injected resolver: reaching the receiver proves it was used.
      expect(await transport.post(post(`http://receiver.example:${port}/ok`))).toMatchObject({
        status: 204,
      });
      await transport.close();
      answer = ["169.254.169.254"];
      const again = undiciWebhookTransport({ urlPolicy: policy });
      expect(await again.post(post(`http://receiver.example:${port}/ok`))).toMatchObject({
        kind: "error",
        error:
          "refused: address 169.254.169.254 is the instance metadata service of AWS, GCP, Azure and Oracle Cloud (cloud metadata)",
      });
      await again.close();
    } finally {
      await transport.close();
    }
  });

  it("by default (production policy) refuses loopback, IP literals included", async () => {
    const transport = undiciWebhookTransport();
    try {
      const count = received.length;
      for (const host of ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "0x7f000001", "2130706433"]) {
        const answer = await transport.post(post(`http://${host}:${port}/ok`));
        expect(answer.kind, host).toBe("error");
        if (answer.kind === "error")
          expect(answer.error, host).toMatch(/^refused: address .* is loopback/);
      }
      expect(received.length).toBe(count);
    } finally {
      await transport.close();
    }
  });
});
