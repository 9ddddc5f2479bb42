import type { IncomingMessage, ServerResponse } from "node:http";
import { normalizePrefix, unprefixed } from "./mount-prefix.js";
import type { HttpApp, HttpResponse } from "./types.js";

export interface RequestListenerOptions {
  /** Mount path such as `/messaging`: only requests under it are served, with it removed. */
  prefix?: string | undefined;
  /** The largest body read, in bytes; defaults to the app's (1 MiB). */
  maxBodyBytes?: number | undefined;
}

/** What the listener does with a request it is serving, as seen by `createServer`. */
export interface ListenerHooks {
  /** Extra headers for every answer (e.g. `connection: close` while shutting down). */
  headers?: (() => Record<string, string>) | undefined;
  /**
   * Told of every request's handling, which settles once its answer is sent or the request is
   * dropped. A client that hangs up does not stop the handling: a send still stores and hands
   * off its message, so a graceful close waits for this rather than for the socket.
   */
  handling?: ((work: Promise<void>) => void) | undefined;
}

/** After refusing a body, how much more is read and dropped before the socket is cut. */
const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;

type BodyOutcome = { kind: "body"; body: Buffer } | { kind: "too_large" } | { kind: "aborted" };

/** Reads the body, but stops keeping it as soon as it is known to exceed `max`. */
function readBody(req: IncomingMessage, max: number): Promise<BodyOutcome> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve({ kind: "too_large" });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off("data", onData);
        resolve({ kind: "too_large" });
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve({ kind: "body", body: Buffer.concat(chunks, size) }));
    req.once("error", () => resolve({ kind: "aborted" }));
    req.once("close", () => {
      if (!req.complete) resolve({ kind: "aborted" });
    });
  });
}

function send(
  res: ServerResponse,
  response: HttpResponse,
  hooks: ListenerHooks,
  extra: Record<string, string> = {},
) {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(response.status, { ...response.headers, ...hooks.headers?.(), ...extra });
  res.end(response.body);
}

/** Drops the rest of a refused body so the client can read the 413, within a limit. */
function drainRefusedBody(req: IncomingMessage) {
  let dropped = 0;
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
}

/**
 * A node:http `(req, res)` listener serving `app`, mountable in any server, also under a path
 * prefix. Bodies over the limit are refused with 413 without being buffered.
 */
export function createRequestListener(
  app: HttpApp,
  options: RequestListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  return listenerWithHooks(app, options, {});
}

/** `createRequestListener` with the hooks `createServer` needs for a graceful close. */
export function listenerWithHooks(
  app: HttpApp,
  options: RequestListenerOptions,
  hooks: ListenerHooks,
): (req: IncomingMessage, res: ServerResponse) => void {
  const prefix = normalizePrefix(options.prefix);
  const max = options.maxBodyBytes ?? app.maxBodyBytes;

  async function serve(req: IncomingMessage, res: ServerResponse) {
    const method = req.method ?? "GET";
    const url = unprefixed(req.url ?? "/", prefix);
    if (url === null) {
      req.resume();
      const target = { method, url: req.url ?? "/", headers: req.headers };
      send(res, app.refuse(target, "route_not_found"), hooks);
      return;
    }
    const outcome = await readBody(req, max);
    if (outcome.kind === "aborted") return;
    if (outcome.kind === "too_large") {
      const response = app.refuse({ method, url, headers: req.headers }, "payload_too_large");
      send(res, response, hooks, { connection: "close" });
      drainRefusedBody(req);
      return;
    }
    const body = outcome.body.length > 0 ? outcome.body : undefined;
    const remoteAddress = req.socket.remoteAddress;
    send(res, await app.handle({ method, url, headers: req.headers, body, remoteAddress }), hooks);
  }

  return (req, res) => {
    const work = serve(req, res).catch((error: unknown) => {
      // `handle` never rejects; this is a failure of the socket itself (already logged by node).
      if (!res.headersSent) res.destroy(error instanceof Error ? error : undefined);
    });
    hooks.handling?.(work);
  };
}
