import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { embedTidings, PREFIX } from "./tidings.js";

export interface ShopOptions {
  /** 0 picks a free port. */
  port: number;
  /** A SQLite file, or `:memory:`. */
  database: string;
  /** 32 bytes as base64 or hex; a fresh one is generated when absent (fine for `:memory:`). */
  secretKey?: string | undefined;
}

/** The running shop: its URL, a first API key, and how to stop it. */
export interface RunningShop {
  url: string;
  token: string;
  webhookSigningSecret: string;
  close(): Promise<void>;
}

/** The shop's own pages: Tidings is one more route of an app that already exists. */
function shopRoutes(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === "GET" && req.url === "/") {
    res.writeHead(200, { "content-type": "text/plain" }).end("Welcome to the shop.\n");
    return;
  }
  res.writeHead(404, { "content-type": "text/plain" }).end("Not a shop page.\n");
}

/**
 * An existing node:http server that embeds Tidings under `/messaging`: `embedTidings`
 * composes the core's ports and runs the webhook delivery engine in the same process; the
 * server hands every request under the prefix to its node:http listener.
 */
export async function startShop(options: ShopOptions): Promise<RunningShop> {
  const tidings = await embedTidings({ database: options.database, secretKey: options.secretKey });
  const server = createServer((req, res) => {
    if (req.url === PREFIX || req.url?.startsWith(`${PREFIX}/`)) tidings.listener(req, res);
    else shopRoutes(req, res);
  });
  await new Promise<void>((resolve) => server.listen(options.port, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token: tidings.token,
    webhookSigningSecret: tidings.webhookSigningSecret,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tidings.close();
    },
  };
}
