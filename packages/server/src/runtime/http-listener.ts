import { createHttpApp, createServer } from "@tidings/adapter-http";
import type { Logger } from "../logger.js";
import { withRequestLog } from "./request-log.js";
import type { Runtime } from "./runtime.js";

/** The HTTP API on a socket. */
export interface HttpListener {
  port: number;
  host: string;
  url: string;
  /** Stops accepting, lets the requests in flight finish, closes idle keep-alive connections. */
  close(): Promise<void>;
}

/** Serves the REST API (adapter-http) over node:http on `host:port` (port 0 picks a free one). */
export async function listenHttp(
  runtime: Runtime,
  logger: Logger,
  host: string,
  port: number,
): Promise<HttpListener> {
  const app = withRequestLog(createHttpApp(runtime.deps, { logger }), logger);
  const server = createServer(app);
  const where = await server.listen(port, host);
  return { ...where, close: () => server.close() };
}
