import { createServer as createNodeServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createIds } from "@tidings/core";
import { answerClientError } from "./client-error.js";
import { listenerWithHooks, type RequestListenerOptions } from "./request-listener.js";
import type { HttpApp } from "./types.js";

export interface ServerOptions extends RequestListenerOptions {
  /** Time allowed to receive the request headers, in ms (10 000); then 408 and close. */
  headersTimeout?: number | undefined;
  /** Time allowed to receive the whole request, body included, in ms (30 000; 0: none). */
  requestTimeout?: number | undefined;
  /** How long an idle keep-alive connection stays open, in ms (5 000). */
  keepAliveTimeout?: number | undefined;
  /** How long `close()` lets requests in flight finish before cutting them, in ms (10 000). */
  shutdownTimeoutMs?: number | undefined;
}

/** A node:http server serving the app, with a graceful `close()`. */
export interface TidingsHttpServer {
  /** The underlying node:http server, e.g. to read `address()` or add listeners. */
  readonly server: Server;
  /** Starts listening (port 0 picks a free port) and resolves with where it listens. */
  listen(port?: number, host?: string): Promise<{ port: number; host: string; url: string }>;
  /**
   * Stops accepting connections, closes idle keep-alive sockets at once, lets requests in
   * flight finish (answered with `Connection: close`), and resolves when every socket is closed
   * and every request's handling has ended, also for clients that hung up. Requests still
   * running after `shutdownTimeoutMs` are cut. Calling it again is harmless.
   */
  close(): Promise<void>;
}

const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * How often node:http looks for requests past their headers or request timeout. Its default,
 * 30 s, would let a client that trickles its headers hold a socket for up to 40 s instead of
 * 10; checking at a fraction of the shortest timeout (at most every second) keeps the limits
 * close to what they say.
 */
function checkingInterval(headersTimeout: number, requestTimeout: number): number {
  const limits = [headersTimeout, requestTimeout].filter((ms) => ms > 0);
  return Math.max(10, Math.floor(Math.min(1_000, ...limits.map((ms) => ms / 4))));
}

/**
 * Stops listening, closes idle sockets, and resolves once every socket is closed and every
 * request's handling has settled, even one whose client hung up: the storage a host closes
 * next is still in use until then. Past `timeoutMs` the sockets are cut and handling that is
 * still running is not waited for any longer.
 */
async function closeGracefully(
  server: Server,
  handling: ReadonlySet<Promise<void>>,
  timeoutMs: number,
): Promise<void> {
  const socketsClosed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  let cut: NodeJS.Timeout | undefined;
  const timedOut = new Promise<void>((resolve) => {
    cut = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, timeoutMs);
    cut.unref();
  });
  // No request starts once the sockets are closed, so the set is complete by then.
  const settled = socketsClosed.then(() => Promise.all(handling)).then(() => undefined);
  await Promise.race([settled, timedOut.then(() => socketsClosed)]);
  clearTimeout(cut);
}

/** A node:http server for `app` with sane timeouts and a graceful close. */
export function createServer(app: HttpApp, options: ServerOptions = {}): TidingsHttpServer {
  let closing: Promise<void> | null = null;
  const handling = new Set<Promise<void>>();
  const listener = listenerWithHooks(app, options, {
    headers: () => (closing ? { connection: "close" } : {}),
    handling: (work) => {
      handling.add(work);
      void work.finally(() => handling.delete(work));
    },
  });
  const headersTimeout = options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const server = createNodeServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: options.keepAliveTimeout ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: checkingInterval(headersTimeout, requestTimeout),
    },
    (req, res) => {
      // A request finishing during shutdown leaves its socket idle; close it right away.
      res.once("close", () => {
        if (closing) server.closeIdleConnections();
      });
      listener(req, res);
    },
  );
  // Requests node:http refuses itself (malformed, too slow, headers too large) get a
  // problem+json answer too, instead of a bare status line.
  const ids = createIds();
  server.on("clientError", (error, socket) => answerClientError(error, socket, ids.uuidv7()));

  return {
    server,
    listen(port = 0, host = "127.0.0.1") {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const address = server.address() as AddressInfo;
          const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
          resolve({
            port: address.port,
            host: address.address,
            url: `http://${shown}:${address.port}`,
          });
        });
      });
    },
    close() {
      closing ??= closeGracefully(server, handling, options.shutdownTimeoutMs ?? 10_000);
      return closing;
    },
  };
}
