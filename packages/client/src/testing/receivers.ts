// Test support: a webhook receiver that keeps each request's raw body and headers, and a proxy
// that drops a connection after the server has answered, as a flaky network does.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as a receiver got it: the bytes that were signed, and the headers. */
export interface RawRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

const readBody = (req: import("node:http").IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

/** A receiver on 127.0.0.1:0 that answers 200 to everything and records it. */
export async function startRawReceiver(): Promise<{
  url: string;
  received: RawRequest[];
  close(): Promise<void>;
}> {
  const received: RawRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    res.writeHead(200).end();
  });
  const url = await listen(server);
  return { url, received, close: () => close(server) };
}

/** Request headers a proxy does not pass on: fetch sets its own. */
export const HOP_BY_HOP = ["host", "connection", "content-length", "transfer-encoding", "origin"];

/** What the dropping proxy forwarded, and the server's answer the client never got. */
export interface Dropped {
  request: RawRequest;
  status: number;
  body: string;
}

/**
 * A proxy to `upstream` that forwards every request and its answer, except the first request
 * `drop` picks: that one reaches the server, which answers, and then the client's connection
 * is destroyed without a byte of the answer.
 */
export async function startDroppingProxy(
  upstream: string,
  drop: (request: RawRequest) => boolean,
): Promise<{ url: string; forwarded: RawRequest[]; dropped: Dropped[]; close(): Promise<void> }> {
  const forwarded: RawRequest[] = [];
  const dropped: Dropped[] = [];
  const server = createServer(async (req, res) => {
    const request: RawRequest = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: req.headers,
      body: await readBody(req),
    };
    forwarded.push(request);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && !HOP_BY_HOP.includes(name)) {
        headers.set(name, value);
      }
    }
    let answer: Response;
    try {
      answer = await fetch(upstream + request.url, {
        method: request.method,
        headers,
        ...(request.body.length > 0 ? { body: new Uint8Array(request.body) } : {}),
      });
    } catch (error) {
      res.writeHead(502).end(String(error));
      return;
    }
    const text = await answer.text();
    if (dropped.length === 0 && drop(request)) {
      dropped.push({ request, status: answer.status, body: text });
      req.socket.destroy();
      return;
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== "content-length" && name !== "transfer-encoding" && name !== "connection") {
        out[name] = value;
      }
    });
    res.writeHead(answer.status, out).end(text);
  });
  const url = await listen(server);
  return { url, forwarded, dropped, close: () => close(server) };
}
