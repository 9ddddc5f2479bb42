import type { AddressInfo } from "node:net";
import express from "express";
import { embedTidings, PREFIX, type RunningHost } from "./tidings.js";

/**
 * An Express app with its own JSON routes and Tidings under `/messaging`. Tidings reads its
 * own body, so it is mounted before `express.json()`, which would otherwise consume it.
 */
export async function startExpress(port = 0): Promise<RunningHost> {
  const tidings = await embedTidings();
  const app = express();
  // `app.use(PREFIX, …)` would strip the prefix from req.url; matching on the full path
  // leaves the URL whole, so the listener's own prefix handling and 404s apply.
  app.use((req, res, next) => {
    if (
      req.url === PREFIX ||
      req.url.startsWith(`${PREFIX}/`) ||
      req.url.startsWith(`${PREFIX}?`)
    ) {
      tidings.listener(req, res);
    } else {
      next();
    }
  });
  app.use(express.json());
  app.get("/", (_req, res) => {
    res.type("text/plain").send("Welcome to the shop.\n");
  });
  app.post("/orders", (req, res) => {
    res.status(201).json({ order: "ord_1", items: req.body.items ?? [] });
  });

  const server = app.listen(port, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
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
