import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { embedTidings, PREFIX, type RunningHost } from "./tidings.js";

/**
 * A Hono app on @hono/node-server with its own routes and Tidings' web-standard handler
 * under `/messaging`: the same `fetch(request)` would serve Bun, Deno or a Next.js route.
 */
export async function startHono(port = 0): Promise<RunningHost> {
  const tidings = await embedTidings();
  const app = new Hono();
  app.get("/", (c) => c.text("Welcome to the shop.\n"));
  app.post("/orders", async (c) => {
    const body = (await c.req.json()) as { items?: unknown[] };
    return c.json({ order: "ord_1", items: body.items ?? [] }, 201);
  });
  app.all(PREFIX, (c) => tidings.fetch(c.req.raw));
  app.all(`${PREFIX}/*`, (c) => tidings.fetch(c.req.raw));

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () =>
      resolve(started),
    );
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    token: tidings.token,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tidings.close();
    },
  };
}
