import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { embedTidings, PREFIX, type RunningHost, runningHost } from "../embed-node-http/tidings.js";

/**
 * A Hono app on @hono/node-server with its own routes and Tidings' web-standard handler
 * under `/messaging`: the same `fetch(request)` would serve Bun, Deno or a Next.js route.
 */
export async function startHono(port = 0): Promise<RunningHost> {
  const tidings = await embedTidings({ secretKey: process.env.TIDINGS_SECRET_KEY });
  const app = new Hono();
  app.get("/", (c) => c.text("Welcome to the shop.\n"));
  app.post("/orders", async (c) => {
    const body = (await c.req.json()) as { items?: unknown[] };
    return c.json({ order: "ord_1", items: body.items ?? [] }, 201);
  });
  app.all(PREFIX, (c) => tidings.fetch(c.req.raw));
  app.all(`${PREFIX}/*`, (c) => tidings.fetch(c.req.raw));

  // node-server answers with a node:http server, which runningHost waits on until it listens.
  return runningHost(serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }) as Server, tidings);
}
